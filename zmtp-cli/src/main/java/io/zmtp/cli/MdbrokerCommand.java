package io.zmtp.cli;

import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.binarystar.BinaryStarEvent;
import io.zmtp.patterns.majordomo.HighAvailabilityBroker;
import io.zmtp.patterns.majordomo.MajordomoBroker;
import io.zmtp.patterns.majordomo.MajordomoBrokerSettings;
import io.zmtp.patterns.kit.Heartbeat;
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
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code zmtp mdbroker}: a Majordomo broker (the guide's mdbroker) serving MDP/0.1 and MDP/0.2
 * clients and workers on one ROUTER socket, until stopped (Ctrl-C).
 */
@Command(name = "mdbroker", mixinStandardHelpOptions = true,
        description = {"Runs a Majordomo broker speaking MDP/0.1 and MDP/0.2 (with MMI) until stopped.",
                "Prints one line per event (workers registering, expiring, invalid messages...).",
                "With --bstar primary|backup: one broker of a highly available pair",
                "(Binary Star). Defaults: primary MDP on tcp://*:5555, state on 5003,",
                "peer state from localhost:5004; backup MDP on tcp://*:5556, state on",
                "5004, peer state from localhost:5003. Clients and workers take both:",
                "  mdclient -e tcp://host1:5555 -e tcp://host2:5556"},
        sortOptions = false,
        exitCodeListHeading = "Exit status:%n",
        exitCodeList = {"0:stopped", "1:cannot bind, or (--bstar) a fatal pair state (dual active, dual passive,"
                + " two primaries, two backups)", "2:bad options"})
public final class MdbrokerCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    static final String DEFAULT_ENDPOINT = "tcp://*:5555";

    @Option(names = {"-e", "--endpoint"}, split = ",", paramLabel = "ENDPOINT",
            description = "Endpoint(s) to bind, repeatable (default: " + DEFAULT_ENDPOINT
                    + "; with --bstar backup: tcp://*:5556).")
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

    @Option(names = "--bstar", paramLabel = "ROLE",
            description = "Run as the primary or backup broker of a highly available pair (Binary Star).")
    String bstar;

    @Option(names = "--state-pub", paramLabel = "ENDPOINT",
            description = "With --bstar: where this broker publishes its state (bound; default: tcp://*:5003"
                    + " for the primary, tcp://*:5004 for the backup).")
    String statePub;

    @Option(names = "--state-peer", paramLabel = "ENDPOINT",
            description = "With --bstar: the peer's state publisher (connected; default: tcp://localhost:5004"
                    + " for the primary, tcp://localhost:5003 for the backup).")
    String statePeer;

    @Option(names = "--state-heartbeat", paramLabel = "DURATION", defaultValue = "1s",
            description = "With --bstar: how often the state is published; the peer counts as gone after two"
                    + " without it (default: ${DEFAULT-VALUE}). Give clients a failover settle of at least two.")
    String stateHeartbeat;

    @Mixin
    BoundLimits limits;

    @Mixin
    CommonOptions.Output output;

    @Mixin
    NameLookupOptions names = new NameLookupOptions();

    @Mixin
    SecurityOptions security;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        boolean quiet = output.quiet();
        HighAvailabilityBroker.Settings.Builder pair = null;
        if (bstar != null) {
            if (bstar.equals("primary")) {
                pair = HighAvailabilityBroker.Settings.primary();
            } else if (bstar.equals("backup")) {
                pair = HighAvailabilityBroker.Settings.backup();
            } else {
                err.println("mdbroker: --bstar takes primary or backup, not " + bstar);
                err.flush();
                return CommonOptions.USAGE;
            }
        } else if (statePub != null || statePeer != null) {
            err.println("mdbroker: --state-pub and --state-peer need --bstar primary|backup");
            err.flush();
            return CommonOptions.USAGE;
        }
        List<String> binds = !endpoints.isEmpty() ? endpoints
                : List.of(pair == null || bstar.equals("primary") ? DEFAULT_ENDPOINT
                        : HighAvailabilityBroker.Settings.BACKUP_ENDPOINT);
        MajordomoBrokerSettings.Builder settings;
        try {
            if (pair != null) {
                if (statePub != null) {
                    pair.statePublisher(statePub);
                }
                if (statePeer != null) {
                    pair.statePeer(statePeer);
                }
                pair.stateHeartbeat(DurationConverter.parse("--state-heartbeat", stateHeartbeat));
            }
            Heartbeat hb = heartbeat.heartbeat();
            settings = MajordomoBrokerSettings.builder().endpoints(binds)
                    .heartbeatInterval(hb.interval()).heartbeatLiveness(hb.liveness())
                    .requestExpiry(requestExpiry)
                    .socketOptions(limits.apply(security.apply(
                            MajordomoBrokerSettings.builder().build().socketOptions().toBuilder())).build())
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
        if (pair != null) {
            return runPair(pair, settings.build(), out, err, quiet);
        }
        ZmtpContext ctx = names.apply(ZmtpContext.create(1));
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

    /** {@code --bstar}: one broker of a highly available pair, until stopped or a fatal pair state. */
    private int runPair(HighAvailabilityBroker.Settings.Builder pair, MajordomoBrokerSettings brokerSettings,
            PrintWriter out, PrintWriter err, boolean quiet) {
        AtomicBoolean fatal = new AtomicBoolean();
        pair.broker(brokerSettings).pairListener(e -> {
            if (e instanceof BinaryStarEvent.Fatal) {
                fatal.set(true);
            }
            if (!quiet || e instanceof BinaryStarEvent.Fatal) {
                MdpOptions.line(out, e.toString()); // as bstarsrv prints it: what a peer sent is escaped in the event
            }
        });
        HighAvailabilityBroker.Settings s = pair.build();
        ZmtpContext ctx = names.apply(ZmtpContext.create(1));
        HighAvailabilityBroker broker = new HighAvailabilityBroker(ctx, s);
        try {
            Futures.await(broker.start(), Duration.ofSeconds(10));
            if (!quiet) {
                for (String bound : broker.endpoints()) {
                    MdpOptions.line(out, "I: MDP broker (MDP/0.1 and MDP/0.2), Binary Star "
                            + (s.isPrimary() ? "primary" : "backup") + ", at " + bound + "; state on "
                            + broker.stateEndpoint() + ", peer state from " + s.statePeer());
                }
            }
        } catch (RuntimeException e) {
            err.println("mdbroker: cannot bind: " + e.getMessage());
            err.flush();
            broker.close();
            ctx.close(Duration.ofSeconds(2));
            return CommonOptions.FAILED;
        }
        MdpOptions.runUntilStopped(broker.terminated(), () -> { // a fatal pair state closes the broker
            broker.close();
            ctx.close(Duration.ofSeconds(2));
            if (!quiet) {
                MdpOptions.line(out, "I: broker stopped");
            }
        });
        return fatal.get() ? CommonOptions.FAILED : CommonOptions.OK;
    }
}
