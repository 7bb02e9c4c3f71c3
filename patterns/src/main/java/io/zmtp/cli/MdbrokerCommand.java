package io.zmtp.cli;

import io.zmtp.patterns.majordomo.MajordomoBroker;
import io.zmtp.patterns.majordomo.MajordomoBrokerSettings;
import io.zmtp.socket.ZmtpContext;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code zmtp mdbroker}: a Majordomo broker (the guide's mdbroker) serving MDP/0.1 and MDP/0.2
 * clients and workers on one ROUTER socket, until stopped (Ctrl-C).
 */
@Command(name = "mdbroker", mixinStandardHelpOptions = true,
        description = {"Runs a Majordomo broker speaking MDP/0.1 and MDP/0.2 (with MMI) until stopped.",
                "Prints one line per event (workers registering, expiring, invalid messages...)."})
public final class MdbrokerCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = {"-b", "--bind"}, defaultValue = "tcp://*:5555", split = ",",
            description = "endpoint(s) to bind (default: ${DEFAULT-VALUE})")
    List<String> binds;

    @Option(names = "--heartbeat", defaultValue = "2500", description = "heartbeat interval in ms (default: ${DEFAULT-VALUE})")
    long heartbeatMs;

    @Option(names = "--liveness", defaultValue = "3", description = "missed heartbeats before a worker is dropped (default: ${DEFAULT-VALUE})")
    int liveness;

    @Option(names = "--request-expiry", defaultValue = "10000",
            description = "ms a request waits for a service without workers (default: ${DEFAULT-VALUE})")
    long requestExpiryMs;

    @Option(names = {"-v", "--verbose"}, description = "print every message, as the guide's -v")
    boolean verbose;

    @Option(names = {"-q", "--quiet"}, description = "print nothing but errors")
    boolean quiet;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        MajordomoBrokerSettings.Builder settings = MajordomoBrokerSettings.builder()
                .heartbeatInterval(Duration.ofMillis(heartbeatMs)).heartbeatLiveness(liveness)
                .requestExpiry(Duration.ofMillis(requestExpiryMs))
                .listener(MdpOptions.brokerEvents(out, quiet));
        if (verbose) {
            settings.tracer(MdpOptions.tracer(out));
        }
        ZmtpContext ctx = ZmtpContext.create(1);
        MajordomoBroker broker = new MajordomoBroker(ctx, settings.build());
        try {
            for (String b : binds) {
                String bound = broker.bind(b).syncUninterruptibly().getNow();
                if (!quiet) {
                    MdpOptions.line(out, "I: MDP broker (MDP/0.1 and MDP/0.2) is active at " + bound);
                }
            }
        } catch (RuntimeException e) {
            err.println("mdbroker: cannot bind: " + e.getMessage());
            err.flush();
            broker.close();
            ctx.close(Duration.ofSeconds(2));
            return 2;
        }
        MdpOptions.runUntilStopped(() -> {
            broker.close();
            ctx.close(Duration.ofSeconds(2));
            if (!quiet) {
                MdpOptions.line(out, "I: broker stopped");
            }
        });
        return 0;
    }
}
