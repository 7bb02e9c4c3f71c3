package io.zmtp.cli;

import io.zmtp.patterns.Futures;
import io.zmtp.patterns.majordomo.MajordomoBroker;
import io.zmtp.patterns.majordomo.MajordomoBrokerSettings;
import io.zmtp.patterns.reliability.Heartbeat;
import io.zmtp.socket.ZmtpContext;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code zmtp mdbroker}: a Majordomo broker (the guide's mdbroker) serving MDP/0.1 and MDP/0.2
 * clients and workers on one ROUTER socket, until stopped (Ctrl-C).
 */
@Command(name = "mdbroker", mixinStandardHelpOptions = true,
        description = {"Runs a Majordomo broker speaking MDP/0.1 and MDP/0.2 (with MMI) until stopped.",
                "Prints one line per event (workers registering, expiring, invalid messages...)."},
        sortOptions = false,
        exitCodeListHeading = "Exit status:%n",
        exitCodeList = {"0:stopped", "1:cannot bind", "2:bad options"})
public final class MdbrokerCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    static final String DEFAULT_ENDPOINT = "tcp://*:5555";

    @Option(names = {"-e", "--endpoint"}, split = ",", paramLabel = "ENDPOINT",
            description = "Endpoint(s) to bind, repeatable (default: " + DEFAULT_ENDPOINT + ").")
    List<String> endpoints = new ArrayList<>();

    /** The older name of --endpoint. */
    @Option(names = {"-b", "--bind"}, split = ",", hidden = true, description = "Same as --endpoint.")
    void bind(List<String> more) {
        endpoints.addAll(more);
    }

    @Mixin
    CommonOptions.Heartbeats heartbeat = new CommonOptions.Heartbeats(Duration.ofMillis(2500), 3);

    /** The older name of --interval (milliseconds). */
    @Option(names = "--heartbeat", hidden = true, description = "Same as --interval.")
    void heartbeatMs(String interval) {
        heartbeat.interval = interval;
    }

    @Option(names = "--request-expiry", defaultValue = "10000", converter = DurationConverter.class,
            paramLabel = "DURATION",
            description = "How long a request waits for a service without workers (default: ${DEFAULT-VALUE} ms).")
    Duration requestExpiry;

    @Option(names = "--max-queued-requests", paramLabel = "N",
            description = "Requests queued for one service before new ones are refused (default: 100000,"
                    + " MajordomoBrokerSettings.maxQueuedRequests).")
    Integer maxQueuedRequests;

    @Mixin
    CommonOptions.Output output;

    @Mixin
    SecurityOptions security;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        boolean quiet = output.quiet();
        List<String> binds = endpoints.isEmpty() ? List.of(DEFAULT_ENDPOINT) : endpoints;
        MajordomoBrokerSettings.Builder settings;
        try {
            Heartbeat hb = heartbeat.heartbeat();
            settings = MajordomoBrokerSettings.builder().endpoints(binds)
                    .heartbeatInterval(hb.interval()).heartbeatLiveness(hb.liveness())
                    .requestExpiry(requestExpiry)
                    .socketOptions(security.apply(MajordomoBrokerSettings.builder().build().socketOptions().toBuilder())
                            .build())
                    .listener(MdpOptions.brokerEvents(out, quiet));
            if (maxQueuedRequests != null) {
                settings.maxQueuedRequests(maxQueuedRequests);
            }
        } catch (IllegalArgumentException e) {
            err.println("mdbroker: " + e.getMessage());
            err.flush();
            return CommonOptions.USAGE;
        }
        if (output.verbose()) {
            settings.tracer(MdpOptions.tracer(out));
        }
        ZmtpContext ctx = ZmtpContext.create(1);
        MajordomoBroker broker = new MajordomoBroker(ctx, settings.build());
        try {
            Futures.await(broker.start(), Duration.ofSeconds(10));
            if (!quiet) {
                for (String bound : broker.endpoints()) {
                    MdpOptions.line(out, "I: MDP broker (MDP/0.1 and MDP/0.2) is active at " + bound);
                }
            }
        } catch (RuntimeException e) {
            err.println("mdbroker: cannot bind: " + e.getMessage());
            err.flush();
            broker.close();
            ctx.close(Duration.ofSeconds(2));
            return CommonOptions.FAILED;
        }
        MdpOptions.runUntilStopped(() -> {
            broker.close();
            ctx.close(Duration.ofSeconds(2));
            if (!quiet) {
                MdpOptions.line(out, "I: broker stopped");
            }
        });
        return CommonOptions.OK;
    }
}
