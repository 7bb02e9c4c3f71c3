package io.zmtp.cli;

import io.zmtp.patterns.FailureSimulation;
import io.zmtp.patterns.paranoidpirate.ParanoidPirateWorker;
import io.zmtp.patterns.paranoidpirate.PirateHeartbeat;
import io.zmtp.socket.ZmtpContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;

/** {@code zmtp ppworker}: the guide's Paranoid Pirate worker (6/PPP), which echoes requests. */
@Command(name = "ppworker", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Paranoid Pirate worker: a DEALER that says READY, heartbeats the queue, echoes requests, and"
                + " reconnects with exponential backoff when the queue goes silent; runs until stopped.",
                "Exit status: 0 when stopped, 1 on a bad endpoint, 3 after a simulated crash."})
public final class PpWorkerCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = {"-e", "--endpoint"}, defaultValue = "tcp://localhost:5556",
            description = "The queue's backend (default: ${DEFAULT-VALUE}).")
    String endpoint;

    @Option(names = "--interval", defaultValue = "1s", converter = DurationConverter.class,
            description = "Heartbeat interval (default: ${DEFAULT-VALUE}).")
    Duration interval;

    @Option(names = "--liveness", defaultValue = "3",
            description = "Missed heartbeats before the queue is taken for dead (default: ${DEFAULT-VALUE}).")
    int liveness;

    @Option(names = "--reconnect", defaultValue = "1s", converter = DurationConverter.class,
            description = "First reconnect delay after the queue is lost (default: ${DEFAULT-VALUE}).")
    Duration reconnect;

    @Option(names = "--reconnect-max", defaultValue = "32s", converter = DurationConverter.class,
            description = "Longest reconnect delay, reached by doubling (default: ${DEFAULT-VALUE}).")
    Duration reconnectMax;

    @Option(names = "--identity",
            description = "Identity (default: a random one such as 1A2B-3C4D for each connection, as the guide's).")
    String identity;

    @Option(names = "--work", defaultValue = "0", converter = DurationConverter.class,
            description = "Time each request takes; heartbeats go on meanwhile (the guide's: 1s; default: ${DEFAULT-VALUE} ms).")
    Duration work;

    @Option(names = "--simulate-failures",
            description = "After 3 requests, crash on 1 in 6 and freeze 3 s (no heartbeats) on 1 in 6 of the rest (the guide's).")
    boolean simulateFailures;

    @Option(names = "--seed", description = "Seed of the simulated failures, for a repeatable run.")
    Long seed;

    @Option(names = {"-v", "--verbose"}, description = "Also print a line per heartbeat received and reply sent.")
    boolean verbose;

    @Option(names = {"-q", "--quiet"}, description = "Print nothing.")
    boolean quiet;

    @Override
    public Integer call() {
        ParanoidPirateWorker.Settings settings;
        try {
            settings = ParanoidPirateWorker.Settings.builder().backend(endpoint)
                    .heartbeat(PirateHeartbeat.of(interval, liveness)).reconnectInterval(reconnect)
                    .reconnectIntervalMax(reconnectMax).identity(identity).workTime(work)
                    .simulation(simulateFailures ? FailureSimulation.guideWorker().seed(seed).build()
                            : FailureSimulation.NONE)
                    .traceMessages(verbose).build();
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println("ppworker: " + e.getMessage());
            return 2;
        }
        AtomicBoolean crashed = new AtomicBoolean();
        ZmtpContext ctx = ZmtpContext.create(1);
        ParanoidPirateWorker worker = new ParanoidPirateWorker(ctx, settings,
                CommandSupport.<ParanoidPirateWorker.Event>printer(spec.commandLine().getOut(), quiet)
                        .andThen(e -> {
                            if (e.type() == ParanoidPirateWorker.Event.Type.CRASHING) {
                                crashed.set(true);
                            }
                        }));
        try {
            worker.start();
            CommandSupport.runUntilStopped(worker.terminated(), worker::close);
            return crashed.get() ? CommandSupport.SIMULATED_CRASH : 0;
        } catch (RuntimeException e) {
            if (Thread.currentThread().isInterrupted()) {
                return 0; // stopped while starting
            }
            spec.commandLine().getErr().println("ppworker: cannot connect to " + endpoint + ": " + CommandSupport.reason(e));
            return 1;
        } finally {
            worker.close();
            ctx.close(Duration.ofSeconds(5));
        }
    }
}
