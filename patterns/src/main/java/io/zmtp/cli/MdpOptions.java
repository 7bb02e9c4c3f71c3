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
        CountDownLatch stopping = new CountDownLatch(1);
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            stopping.countDown();
            try {
                stopped.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "zmtp-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            stopping.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try {
                stop.run();
            } finally {
                stopped.countDown();
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException e) {
                    // the JVM is shutting down: the hook is running
                }
            }
        }
    }
}
