package io.zmtp.cli;

import io.zmtp.patterns.FailureSimulation;
import io.zmtp.patterns.lazypirate.LazyPirateServer;
import io.zmtp.socket.ZmtpContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;

/** {@code zmtp lpserver}: the guide's Lazy Pirate server, a REP echo server. */
@Command(name = "lpserver", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Lazy Pirate server: a REP socket that echoes each request; runs until stopped.",
                "With --simulate-failures it crashes or stalls now and then, as the guide's does.",
                "Exit status: 0 when stopped, 1 when it cannot bind, 3 after a simulated crash."})
public final class LpServerCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = {"-e", "--endpoint"}, defaultValue = "tcp://*:5555",
            description = "Endpoint to bind (default: ${DEFAULT-VALUE}).")
    String endpoint;

    @Option(names = "--work", defaultValue = "0", converter = DurationConverter.class,
            description = "Time each request takes before its reply (the guide's: 1s; default: ${DEFAULT-VALUE} ms).")
    Duration work;

    @Option(names = "--simulate-failures",
            description = "After 3 requests, crash on 1 in 4 and stall 2 s on 1 in 4 of the rest (the guide's).")
    boolean simulateFailures;

    @Option(names = "--seed", description = "Seed of the simulated failures, for a repeatable run.")
    Long seed;

    @Option(names = {"-q", "--quiet"}, description = "Print nothing.")
    boolean quiet;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        AtomicBoolean crashed = new AtomicBoolean();
        FailureSimulation simulation = simulateFailures
                ? FailureSimulation.guideServer().seed(seed).build()
                : FailureSimulation.NONE;
        ZmtpContext ctx = ZmtpContext.create(1);
        LazyPirateServer server = new LazyPirateServer(ctx, LazyPirateServer.Settings.builder().endpoint(endpoint)
                .workTime(work).simulation(simulation).build(),
                CommandSupport.<LazyPirateServer.Event>printer(out, quiet).andThen(e -> {
                    if (e.type() == LazyPirateServer.Event.Type.CRASHING) {
                        crashed.set(true);
                    }
                }));
        try {
            server.start();
            CommandSupport.runUntilStopped(server.terminated(), server::close);
            return crashed.get() ? CommandSupport.SIMULATED_CRASH : 0;
        } catch (RuntimeException e) {
            if (Thread.currentThread().isInterrupted()) {
                return 0; // stopped while starting
            }
            spec.commandLine().getErr().println("lpserver: cannot bind " + endpoint + ": " + CommandSupport.reason(e));
            return 1;
        } finally {
            server.close();
            ctx.close(Duration.ofSeconds(5));
        }
    }
}
