package io.zmtp.cli;

import io.zmtp.patterns.binarystar.BinaryStarEvent;
import io.zmtp.patterns.binarystar.BinaryStarServer;
import io.zmtp.patterns.kit.ComponentSettings;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * {@code zmtp bstarsrv}: one server of the guide's Binary Star pair, echoing client requests while
 * it is active. Endpoints default to the guide's for the role.
 */
@Command(name = "bstarsrv", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Binary Star server: one of a primary-backup pair; echoes client requests while active.",
                "Primary: clients on tcp://*:5001, state on tcp://*:5003, peer state from tcp://localhost:5004.",
                "Backup: clients on tcp://*:5002, state on tcp://*:5004, peer state from tcp://localhost:5003."},
        exitCodeListHeading = "Exit status:%n",
        exitCodeList = {"0:stopped", "1:cannot bind, or a fatal pair state (dual active, dual passive,"
                + " two primaries, two backups)", "2:bad options"})
public final class BstarSrvCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Role role;

    static final class Role {
        @Option(names = {"-p", "--primary"}, required = true, description = "Run as the primary.")
        boolean primary;

        @Option(names = {"-b", "--backup"}, required = true, description = "Run as the backup.")
        boolean backup;
    }

    @Option(names = "--frontend", paramLabel = "ENDPOINT",
            description = "Where clients connect (bound; default: the role's, tcp://*:5001 or tcp://*:5002).")
    String frontend;

    @Option(names = "--state-pub", paramLabel = "ENDPOINT",
            description = "Where this server publishes its state (bound; default: tcp://*:5003 or tcp://*:5004).")
    String statePub;

    @Option(names = "--state-peer", paramLabel = "ENDPOINT",
            description = "The peer's state publisher (connected; default: tcp://localhost:5004 or tcp://localhost:5003).")
    String statePeer;

    @Option(names = "--heartbeat", paramLabel = "DURATION", defaultValue = "1s",
            description = "How often the state is published; the peer counts as gone after two without it"
                    + " (default: ${DEFAULT-VALUE}).")
    String heartbeat;

    @Mixin
    BoundLimits limits;

    @Mixin
    NameLookupOptions names = new NameLookupOptions();

    @Mixin
    CommonOptions.Output output;

    @Override
    public Integer call() {
        int status = CommandSupport.<BinaryStarServer.Settings, BinaryStarEvent>runComponent(spec, "bstarsrv",
                "cannot start", output, names, this::settings,
                (ctx, s, listener) -> new BinaryStarServer(ctx, s, listener), BinaryStarEvent.Fatal.class);
        return status == CommonOptions.SIMULATED_CRASH ? CommonOptions.FAILED : status;
    }

    private BinaryStarServer.Settings settings() {
        BinaryStarServer.Settings.Builder b = role.primary ? BinaryStarServer.Settings.primary()
                : BinaryStarServer.Settings.backup();
        if (frontend != null) {
            b.frontend(frontend);
        }
        if (statePub != null) {
            b.statePublisher(statePub);
        }
        if (statePeer != null) {
            b.statePeer(statePeer);
        }
        Duration hb = DurationConverter.parse("--heartbeat", heartbeat);
        return b.stateHeartbeat(hb).socketOptions(limits.apply(ComponentSettings.SOCKET_OPTIONS.toBuilder()).build())
                .traceMessages(output.verbose()).build();
    }
}
