package io.zmtp.cli;

import io.zmtp.patterns.tripping.TrippingBroker;
import io.zmtp.patterns.tripping.TrippingClient;
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

    @Option(names = "--io-threads", description = "event loops (default: one per processor)")
    Integer ioThreads;

    @Option(names = "--rounds", description = "times to repeat the whole test (default ${DEFAULT-VALUE})", defaultValue = "1")
    int rounds;

    @Option(names = "--no-warmup", description = "skip the unprinted warm-up pass of both tests")
    boolean noWarmup;

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
            TrippingBroker broker = new TrippingBroker(ctx);
            String[] bound = broker.bind(fe, be);
            TrippingWorker worker = new TrippingWorker(ctx, bound[1]);
            TrippingClient c = new TrippingClient(ctx, bound[0]);
            talk.println("Setting up test... (" + transport + ", " + client + " client)");
            if (output.verbose()) {
                out.println("broker: clients on " + bound[0] + ", workers on " + bound[1]);
            }
            // A Java process runs slowly until the JIT has compiled the hot paths: one unprinted pass
            // of both tests first, so the figures printed are those of a warm process.
            if (!noWarmup) {
                talk.println("Warming up (one pass of both tests, not printed)...");
                talk.flush();
                if (reactor) {
                    c.synchronousReactor(syncCalls);
                    c.asynchronousReactor(asyncCalls);
                } else {
                    c.synchronous(syncCalls);
                    c.asynchronous(asyncCalls);
                }
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

    private static long rate(int calls, long nanos) {
        return (long) (calls * 1e9 / nanos);
    }
}
