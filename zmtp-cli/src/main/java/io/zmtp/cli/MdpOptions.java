package io.zmtp.cli;

import io.zmtp.patterns.majordomo.MajordomoEvent;
import io.zmtp.patterns.majordomo.MdpVersion;
import io.zmtp.patterns.majordomo.MessageDump;
import io.zmtp.patterns.majordomo.MessageTracer;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/** What the Majordomo commands share: the --protocol converter, event and trace printing, running until stopped. */
final class MdpOptions {

    private MdpOptions() {
    }

    /** Converts "0.1" / "0.2" to an {@link MdpVersion}. */
    /**
     * {@code -e/--endpoint}, repeatable, and its older name {@code -c/--connect}: the broker, or
     * the two brokers of a highly available pair (mdclient, mdworker).
     */
    static final class Brokers {
        // initial values, not defaultValue: picocli applies a defaultValue after the hidden alias
        static final String DEFAULT_BROKER = "tcp://localhost:5555";

        @CommandLine.Option(names = {"-e", "--endpoint"}, split = ",", paramLabel = "ENDPOINT",
                description = {"The broker (default: " + DEFAULT_BROKER + "). Repeatable: the brokers of a highly"
                        + " available pair (mdbroker --bstar), tried in turn when one is lost."})
        java.util.List<String> connect = new java.util.ArrayList<>();

        /** The older name of --endpoint. */
        @CommandLine.Option(names = {"-c", "--connect"}, split = ",", hidden = true, description = "Same as --endpoint.")
        void connect(java.util.List<String> endpoints) {
            this.connect.addAll(endpoints);
        }

        /** The brokers given, or the default one. */
        java.util.List<String> list() {
            return connect.isEmpty() ? java.util.List.of(DEFAULT_BROKER) : connect;
        }
    }

    static final class VersionConverter implements CommandLine.ITypeConverter<MdpVersion> {
        @Override
        public MdpVersion convert(String value) {
            try {
                return MdpVersion.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    /** Prints each message as the guide's -v does: what happened, then the frames. */
    static MessageTracer tracer(PrintWriter out) {
        return (what, message) -> {
            String dump = MessageDump.format(message);
            synchronized (out) {
                out.println(what);
                out.print(dump);
                out.flush();
            }
        };
    }

    /** Prints one line per event, unless quiet. */
    static Consumer<MajordomoEvent> events(PrintWriter out, boolean quiet) {
        if (quiet) {
            return null;
        }
        return e -> line(out, "I: " + e);
    }

    /**
     * The broker's event lines: what peers cause (refused, expired or invalid requests, gone
     * clients) is rate-limited, {@value #BURST} lines then one a second, the next line saying how
     * many were left out, so a flood of bad requests cannot flood the terminal (or stall the
     * broker's loop on a slow one). Text a peer chose is escaped.
     */
    static Consumer<MajordomoEvent> brokerEvents(PrintWriter out, boolean quiet) {
        if (quiet) {
            return null;
        }
        return new Consumer<>() {
            private double tokens = BURST;
            private long last = System.nanoTime();
            private long suppressed;

            @Override
            public void accept(MajordomoEvent e) {
                boolean peerCaused = switch (e.type()) {
                    case REQUEST_REJECTED, REQUEST_EXPIRED, INVALID_MESSAGE, CLIENT_GONE, WORKER_DISCONNECTED -> true;
                    default -> false;
                };
                if (peerCaused) {
                    long now = System.nanoTime();
                    tokens = Math.min(BURST, tokens + (now - last) / 1e9);
                    last = now;
                    if (tokens < 1) {
                        suppressed++;
                        return;
                    }
                    tokens--;
                }
                // escaped (a peer's words cannot forge a line) but whole: a reason cut after 64
                // characters told an operator nothing
                String text = "I: " + io.zmtp.wire.FrameText.escape(e.toString(), EVENT_CHARS);
                if (suppressed > 0) {
                    text += " (" + suppressed + " similar line(s) left out)";
                    suppressed = 0;
                }
                line(out, text);
            }
        };
    }

    static final int BURST = 20;

    /** How much of a broker event's line is shown (escaped): far more than any reason we write. */
    static final int EVENT_CHARS = 1024;

    static void line(PrintWriter out, String text) {
        synchronized (out) {
            out.println(text);
            out.flush();
        }
    }

    /**
     * Blocks until the thread is interrupted or the process is asked to stop (Ctrl-C), then runs
     * {@code stop} once.
     */
    static void runUntilStopped(Runnable stop) {
        runUntilStopped(new java.util.concurrent.CompletableFuture<Void>(), stop);
    }

    /**
     * Blocks until the thread is interrupted, the process is asked to stop (Ctrl-C), or
     * {@code ended} completes, however (the command's components closed by themselves: a fatal
     * pair state, workers whose sockets stopped reconnecting), then runs {@code stop} once.
     */
    static void runUntilStopped(java.util.concurrent.CompletionStage<?> ended, Runnable stop) {
        CountDownLatch stopping = new CountDownLatch(1);
        ended.whenComplete((r, e) -> stopping.countDown());
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = CommandSupport.onShutdown(() -> {
            stopping.countDown();
            try {
                stopped.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            stopping.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try {
                stop.run();
            } finally {
                stopped.countDown();
                CommandSupport.removeShutdownHook(hook);
            }
        }
    }
}
