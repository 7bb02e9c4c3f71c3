package io.zmtp.cli;

import io.zmtp.patterns.FailureSimulation;
import io.zmtp.patterns.simplepirate.SimplePirateWorker;
import io.zmtp.socket.ZmtpContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;

/** {@code zmtp spworker}: the guide's Simple Pirate worker, which echoes requests. */
@Command(name = "spworker", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Simple Pirate worker: a REQ socket that says READY to the queue, then echoes each request;"
                + " runs until stopped.", "Exit status: 0 when stopped, 1 on a bad endpoint, 3 after a simulated crash."})
public final class SpWorkerCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = {"-e", "--endpoint"}, defaultValue = "tcp://localhost:5556",
            description = "The queue's backend (default: ${DEFAULT-VALUE}).")
    String endpoint;

    @Option(names = "--identity", description = "Identity (default: a random one such as 1A2B-3C4D, as the guide's).")
    String identity;

    @Option(names = "--work", defaultValue = "0", converter = DurationConverter.class,
            description = "Time each request takes (the guide's: 1s; default: ${DEFAULT-VALUE} ms).")
    Duration work;

    @Option(names = "--simulate-failures",
            description = "After 3 requests, crash on 1 in 6 and stall 3 s on 1 in 6 of the rest (the guide's).")
    boolean simulateFailures;

    @Option(names = "--seed", description = "Seed of the simulated failures, for a repeatable run.")
    Long seed;

    @Option(names = {"-q", "--quiet"}, description = "Print nothing.")
    boolean quiet;

    @Override
    public Integer call() {
        AtomicBoolean crashed = new AtomicBoolean();
        ZmtpContext ctx = ZmtpContext.create(1);
        SimplePirateWorker worker = new SimplePirateWorker(ctx, SimplePirateWorker.Settings.builder()
                .backend(endpoint).identity(identity).workTime(work)
                .simulation(simulateFailures ? FailureSimulation.guideWorker().seed(seed).build() : FailureSimulation.NONE)
                .build(),
                CommandSupport.<SimplePirateWorker.Event>printer(spec.commandLine().getOut(), quiet)
                        .andThen(e -> {
                            if (e.type() == SimplePirateWorker.Event.Type.CRASHING) {
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
            spec.commandLine().getErr().println("spworker: cannot connect to " + endpoint + ": " + CommandSupport.reason(e));
            return 1;
        } finally {
            worker.close();
            ctx.close(Duration.ofSeconds(5));
        }
    }
}
