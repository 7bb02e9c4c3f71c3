package io.zmtp.cli;

import io.zmtp.patterns.simplepirate.SimplePirateQueue;
import io.zmtp.socket.ZmtpContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.util.concurrent.Callable;

/** {@code zmtp spqueue}: the guide's Simple Pirate queue. */
@Command(name = "spqueue", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Simple Pirate queue: least-recently-used routing from clients to workers that said READY;"
                + " runs until stopped.", "Exit status: 0 when stopped, 1 when it cannot bind."})
public final class SpQueueCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--frontend", defaultValue = "tcp://*:5555",
            description = "Endpoint for clients (default: ${DEFAULT-VALUE}).")
    String frontend;

    @Option(names = "--backend", defaultValue = "tcp://*:5556",
            description = "Endpoint for workers (default: ${DEFAULT-VALUE}).")
    String backend;

    @Option(names = {"-v", "--verbose"}, description = "Also print a line per request and reply routed.")
    boolean verbose;

    @Option(names = {"-q", "--quiet"}, description = "Print nothing.")
    boolean quiet;

    @Override
    public Integer call() {
        ZmtpContext ctx = ZmtpContext.create(1);
        SimplePirateQueue queue = new SimplePirateQueue(ctx, SimplePirateQueue.Settings.builder()
                .frontend(frontend).backend(backend).traceMessages(verbose).build(),
                CommandSupport.printer(spec.commandLine().getOut(), quiet));
        try {
            queue.start();
            CommandSupport.runUntilStopped(queue.terminated(), queue::close);
            return 0;
        } catch (RuntimeException e) {
            if (Thread.currentThread().isInterrupted()) {
                return 0; // stopped while starting
            }
            spec.commandLine().getErr().println("spqueue: cannot bind " + frontend + " and " + backend + ": "
                    + CommandSupport.reason(e));
            return 1;
        } finally {
            queue.close();
            ctx.close(Duration.ofSeconds(5));
        }
    }
}
