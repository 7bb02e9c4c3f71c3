package io.zmtp.cli;

import io.zmtp.patterns.paranoidpirate.ParanoidPirateQueue;
import io.zmtp.patterns.paranoidpirate.PirateHeartbeat;
import io.zmtp.socket.ZmtpContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.util.concurrent.Callable;

/** {@code zmtp ppqueue}: the guide's Paranoid Pirate queue (6/PPP). */
@Command(name = "ppqueue", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Paranoid Pirate queue: least-recently-used routing to workers it heartbeats, forgetting"
                + " silent ones; runs until stopped.", "Exit status: 0 when stopped, 1 when it cannot bind."})
public final class PpQueueCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--frontend", defaultValue = "tcp://*:5555",
            description = "Endpoint for clients (default: ${DEFAULT-VALUE}).")
    String frontend;

    @Option(names = "--backend", defaultValue = "tcp://*:5556",
            description = "Endpoint for workers (default: ${DEFAULT-VALUE}).")
    String backend;

    @Option(names = "--interval", defaultValue = "1s", converter = DurationConverter.class,
            description = "Heartbeat interval (default: ${DEFAULT-VALUE}).")
    Duration interval;

    @Option(names = "--liveness", defaultValue = "3",
            description = "Missed heartbeats before a worker is dead (default: ${DEFAULT-VALUE}).")
    int liveness;

    @Option(names = {"-v", "--verbose"}, description = "Also print a line per request and reply routed.")
    boolean verbose;

    @Option(names = {"-q", "--quiet"}, description = "Print nothing.")
    boolean quiet;

    @Override
    public Integer call() {
        PirateHeartbeat heartbeat;
        try {
            heartbeat = PirateHeartbeat.of(interval, liveness);
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println("ppqueue: " + e.getMessage());
            return 2;
        }
        ZmtpContext ctx = ZmtpContext.create(1);
        ParanoidPirateQueue queue = new ParanoidPirateQueue(ctx, ParanoidPirateQueue.Settings.builder()
                .frontend(frontend).backend(backend).heartbeat(heartbeat).traceMessages(verbose).build(),
                CommandSupport.printer(spec.commandLine().getOut(), quiet));
        try {
            queue.start();
            CommandSupport.runUntilStopped(queue.terminated(), queue::close);
            return 0;
        } catch (RuntimeException e) {
            if (Thread.currentThread().isInterrupted()) {
                return 0; // stopped while starting
            }
            spec.commandLine().getErr().println("ppqueue: cannot bind " + frontend + " and " + backend + ": "
                    + CommandSupport.reason(e));
            return 1;
        } finally {
            queue.close();
            ctx.close(Duration.ofSeconds(5));
        }
    }
}
