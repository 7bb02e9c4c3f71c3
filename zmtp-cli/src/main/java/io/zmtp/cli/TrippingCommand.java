package io.zmtp.cli;

import io.zmtp.patterns.tripping.TrippingBroker;
import io.zmtp.patterns.tripping.TrippingClient;
import io.zmtp.patterns.tripping.TrippingSecurity;
import io.zmtp.patterns.tripping.TrippingWorker;
import io.zmtp.socket.ZmtpContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * {@code zmtp tripping}: the guide's round-trip demonstrator. A client, a ROUTER/ROUTER broker
 * and an echoing worker in one process, over loopback tcp (or inproc); prints synchronous and
 * asynchronous calls per second.
 */
@Command(name = "tripping", mixinStandardHelpOptions = true,
        description = "Round-trip demonstrator: client -> broker -> worker in one process; prints calls/second.",
        exitCodeListHeading = "Exit status:%n",
        exitCodeList = {"0:done", "1:the test failed", "2:bad options"})
public final class TrippingCommand implements Callable<Integer> {

    @Option(names = "--sync", description = "synchronous calls (default ${DEFAULT-VALUE})", defaultValue = "10000")
    int syncCalls;

    @Option(names = "--async", description = "asynchronous calls (default ${DEFAULT-VALUE})", defaultValue = "100000")
    int asyncCalls;

    @Option(names = "--transport", description = "tcp or inproc (default ${DEFAULT-VALUE})", defaultValue = "tcp")
    String transport;

    @Option(names = "--client", description = "blocking (a user thread, as the guide) or reactor (on the event loop); default ${DEFAULT-VALUE}",
            defaultValue = "blocking")
    String client;

    @Option(names = "--curve", description = "CURVE on both hops: the broker's ROUTERs CURVE servers, the client and"
            + " the worker CURVE clients (key pairs made for the run)")
    boolean curve;

    @Option(names = "--io-threads", description = "event loops (default: one per processor)")
    Integer ioThreads;

    @Option(names = "--rounds", description = "times to repeat the whole test (default ${DEFAULT-VALUE})", defaultValue = "1")
    int rounds;

    @Option(names = "--no-warmup", description = "skip the unprinted warm-up")
    boolean noWarmup;

    @Option(names = "--warmup", converter = DurationConverter.class, defaultValue = "30s",
            description = "the longest warm-up: short unprinted passes of both tests until their rates are"
                    + " stable (the last " + WarmUp.WINDOW + " within " + WarmUp.TOLERANCE_PERCENT
                    + "%%), or this long (default ${DEFAULT-VALUE})")
    Duration warmup;

    @picocli.CommandLine.Mixin
    CommonOptions.Output output;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (!(transport.equals("tcp") || transport.equals("inproc")) || !(client.equals("blocking")
                || client.equals("reactor")) || syncCalls < 1 || asyncCalls < 1 || rounds < 1) {
            spec.commandLine().getErr().println("tripping: --transport is tcp or inproc, --client blocking or reactor,"
                    + " and the counts at least 1");
            return CommonOptions.USAGE;
        }
        // --quiet: the figures only; --verbose: also where the broker listens.
        PrintWriter talk = output.quiet() ? new PrintWriter(java.io.Writer.nullWriter()) : out;
        boolean reactor = client.equals("reactor");
        String fe = transport.equals("inproc") ? "inproc://tripping-frontend" : "tcp://127.0.0.1:0";
        String be = transport.equals("inproc") ? "inproc://tripping-backend" : "tcp://127.0.0.1:0";
        try (ZmtpContext ctx = ioThreads == null ? ZmtpContext.create() : ZmtpContext.create(ioThreads)) {
            TrippingSecurity security = curve ? TrippingSecurity.curve() : TrippingSecurity.NONE;
            TrippingBroker broker = new TrippingBroker(ctx, security.broker(), security.broker());
            String[] bound = broker.bind(fe, be);
            TrippingWorker worker = new TrippingWorker(ctx, bound[1], security.peers());
            TrippingClient c = new TrippingClient(ctx, bound[0], security.peers());
            talk.println("Setting up test... (" + transport + ", " + client + " client" + (curve ? ", CURVE" : "") + ")");
            if (output.verbose()) {
                out.println("broker: clients on " + bound[0] + ", workers on " + bound[1]);
            }
            out.println(machine());
            // A Java process runs slowly until the JIT has compiled the hot paths: short unprinted
            // passes of both tests until their rates settle, so the figures printed are those of a
            // warm process (one fixed pass was too short: a fresh process printed a fifth of the
            // warm rate).
            if (!noWarmup) {
                talk.println("Warming up (passes of both tests until their rates are stable, not printed)...");
                talk.flush();
                int syncPass = Math.max(1, syncCalls / 5);
                int asyncPass = Math.max(1, asyncCalls / 5);
                WarmUp sync = new WarmUp();
                WarmUp async = new WarmUp();
                long start = System.nanoTime();
                long limit = warmup.toNanos();
                do {
                    sync.add(rate(syncPass, reactor ? c.synchronousReactor(syncPass) : c.synchronous(syncPass)));
                    async.add(rate(asyncPass, reactor ? c.asynchronousReactor(asyncPass) : c.asynchronous(asyncPass)));
                } while (!(sync.stable() && async.stable()) && System.nanoTime() - start < limit);
                talk.printf("Warmed up in %.1f s, %d passes%s%n", (System.nanoTime() - start) / 1e9, sync.passes(),
                        sync.stable() && async.stable() ? "" : " (rates still moving: --warmup ends it)");
            }
            for (int r = 0; r < rounds; r++) {
                talk.println("Synchronous round-trip test...");
                long ns = reactor ? c.synchronousReactor(syncCalls) : c.synchronous(syncCalls);
                out.printf(" %d calls/second%n", rate(syncCalls, ns));
                talk.println("Asynchronous round-trip test...");
                ns = reactor ? c.asynchronousReactor(asyncCalls) : c.asynchronous(asyncCalls);
                out.printf(" %d calls/second%n", rate(asyncCalls, ns));
                out.flush();
            }
            c.close();
            worker.close();
            broker.close();
            ctx.close(Duration.ofSeconds(5));
        }
        return 0;
    }

    /** The JVM, the machine and the I/O under the figures, on one line. */
    private String machine() {
        Runtime rt = Runtime.getRuntime();
        return String.format("%s %s, %d processors, %s %s, %s I/O, %d event loops",
                System.getProperty("java.vm.name"), Runtime.version(), rt.availableProcessors(),
                System.getProperty("os.name"), System.getProperty("os.arch"),
                io.zmtp.transport.IoTransport.preferred().name().toLowerCase(java.util.Locale.ROOT),
                ioThreads == null ? rt.availableProcessors() : ioThreads);
    }

    /**
     * When a warm-up has done its work: the rates of the last {@link #WINDOW} passes are within
     * {@link #TOLERANCE_PERCENT} percent of each other (and at least {@link #WINDOW} passes ran).
     */
    static final class WarmUp {
        static final int WINDOW = 3;
        static final int TOLERANCE_PERCENT = 10;
        private final java.util.ArrayDeque<Long> last = new java.util.ArrayDeque<>();
        private int passes;

        void add(long rate) {
            passes++;
            last.addLast(rate);
            if (last.size() > WINDOW) {
                last.removeFirst();
            }
        }

        boolean stable() {
            if (last.size() < WINDOW) {
                return false;
            }
            long min = Long.MAX_VALUE;
            long max = 0;
            for (long r : last) {
                min = Math.min(min, r);
                max = Math.max(max, r);
            }
            return min > 0 && max * 100 <= min * (100L + TOLERANCE_PERCENT);
        }

        int passes() {
            return passes;
        }
    }

    private static long rate(int calls, long nanos) {
        return (long) (calls * 1e9 / nanos);
    }
}
