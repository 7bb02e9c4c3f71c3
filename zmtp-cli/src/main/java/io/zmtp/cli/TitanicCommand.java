package io.zmtp.cli;

import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.majordomo.MajordomoClientSettings;
import io.zmtp.patterns.majordomo.MajordomoWorkerSettings;
import io.zmtp.patterns.majordomo.MdpVersion;
import io.zmtp.patterns.kit.Heartbeat;
import io.zmtp.patterns.kit.ReconnectStoppedException;
import io.zmtp.patterns.titanic.TitanicEvent;
import io.zmtp.patterns.titanic.TitanicServer;
import io.zmtp.patterns.titanic.TitanicSettings;
import io.zmtp.patterns.titanic.TitanicStore;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Consumer;

/**
 * {@code zmtp titanic}: the guide's titanic server (9/TSP) until stopped (Ctrl-C): registers
 * titanic.request, titanic.reply and titanic.close with a Majordomo broker, keeps requests and
 * replies in a durable store in {@code --store DIR}, dispatches stored requests to their services.
 */
@Command(name = "titanic", mixinStandardHelpOptions = true,
        description = {"Runs a Titanic server (9/TSP) on a Majordomo broker until stopped.",
                "Requests are stored durably before they are acknowledged, then dispatched",
                "to their service; replies are stored until the client closes them."},
        sortOptions = false,
        exitCodeListHeading = "Exit status:%n",
        exitCodeList = {"0:stopped", "1:the store cannot be opened, the server cannot start, or its workers stopped"
                + " reconnecting to the broker", "2:bad options"})
public final class TitanicCommand implements Callable<Integer>, ConnectingCommand {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = {"-e", "--endpoint"}, description = "The broker (default: ${DEFAULT-VALUE}).")
    String connect = "tcp://localhost:5555";

    @Option(names = "--store", paramLabel = "DIR|URL", defaultValue = "titanic",
            description = "the store: a directory for SQLite (default: ${DEFAULT-VALUE}, under the working directory), "
                    + "or a PostgreSQL database (postgresql://[USER[:PASSWORD]@]HOST[:PORT]/DB, or a jdbc:postgresql: URL) "
                    + "that several titanic servers share")
    String store;

    @Option(names = "--fsync", description = "SQLite: flush each commit to the disk: requests survive a power loss, "
            + "not only a crash of the process (slower); PostgreSQL always waits for its server's commit")
    boolean fsync;

    @Option(names = "--claim-lease", defaultValue = "10s", converter = DurationConverter.class, paramLabel = "DURATION",
            description = "PostgreSQL: how long after a server dies another takes over the requests it held "
                    + "(default: ${DEFAULT-VALUE})")
    Duration claimLease;

    @Option(names = "--max-entries", defaultValue = "1000000", paramLabel = "N",
            description = "requests the store holds at most; past it titanic.request answers 500 (default: ${DEFAULT-VALUE})")
    long maxEntries;

    @Option(names = "--protocol", defaultValue = "0.1", converter = MdpOptions.VersionConverter.class,
            description = "MDP version, 0.1 or 0.2 (default: ${DEFAULT-VALUE})")
    MdpVersion protocol;

    @Option(names = "--request-workers", defaultValue = "32", paramLabel = "N",
            description = "workers for titanic.request: submissions that wait for a commit at once (default: ${DEFAULT-VALUE})")
    int requestWorkers;

    @Option(names = "--retry-interval", defaultValue = "1s", converter = DurationConverter.class, paramLabel = "DURATION",
            description = "pause before a request whose service has no workers, or whose dispatch failed, goes again (default: ${DEFAULT-VALUE})")
    Duration retryInterval;

    @Option(names = "--dispatch-timeout", defaultValue = "5s", converter = DurationConverter.class, paramLabel = "DURATION",
            description = "a dispatch without a reply after this failed (default: ${DEFAULT-VALUE})")
    Duration dispatchTimeout;

    @Option(names = "--retention", defaultValue = "1440m", converter = DurationConverter.class, paramLabel = "DURATION",
            description = "replies nobody closed are deleted after this; 0: kept (default: ${DEFAULT-VALUE})")
    Duration retention;

    @Mixin
    CommonOptions.Heartbeats heartbeat = new CommonOptions.Heartbeats(Duration.ofMillis(2500), 3);

    @Mixin
    CommonOptions.Output output;

    @Mixin
    NameLookupOptions names = new NameLookupOptions();

    @Mixin
    ConnectionLossOptions connection = new ConnectionLossOptions();

    @Mixin
    SecurityOptions security;

    /** The options of the service workers' sockets: security and connection-loss flags over the pattern's defaults. */
    SocketOptions workerSocketOptions() {
        return connection.apply(security.apply(MajordomoWorkerSettings.builder().build().socketOptions().toBuilder())).build();
    }

    /** The options of the client socket that dispatches requests to the services, over the client's defaults. */
    SocketOptions clientSocketOptions() {
        return connection.apply(security.apply(MajordomoClientSettings.builder().build().socketOptions().toBuilder())).build();
    }

    @Override
    public java.util.List<SocketOptions> connectingSocketOptions() {
        return java.util.List.of(workerSocketOptions(), clientSocketOptions());
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        boolean quiet = output.quiet();
        TitanicSettings settings;
        try {
            Heartbeat hb = heartbeat.heartbeat();
            SocketOptions workerSocket = workerSocketOptions();
            SocketOptions clientSocket = clientSocketOptions();
            settings = TitanicSettings.builder().broker(connect).version(protocol)
                    .workerSettings(MajordomoWorkerSettings.builder().heartbeatInterval(hb.interval())
                            .heartbeatLiveness(hb.liveness()).socketOptions(workerSocket).build())
                    .clientSettings(MajordomoClientSettings.builder().socketOptions(clientSocket).build())
                    .requestWorkers(requestWorkers).retryInterval(retryInterval).dispatchTimeout(dispatchTimeout)
                    .replyRetention(retention)
                    .traceMessages(output.verbose())
                    .listener(events(out, quiet))
                    .build();
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println("titanic: " + e.getMessage());
            return CommonOptions.USAGE;
        }
        if (maxEntries < 1) {
            spec.commandLine().getErr().println("titanic: --max-entries must be at least 1");
            return CommonOptions.USAGE;
        }
        TitanicStore opened;
        try {
            TitanicStores.check(store, fsync, claimLease);
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println("titanic: " + e.getMessage());
            return CommonOptions.USAGE;
        }
        try {
            opened = TitanicStores.open(store, fsync, maxEntries, claimLease);
        } catch (RuntimeException e) {
            // the store's own message names the store (a PostgreSQL one without its password)
            spec.commandLine().getErr().println("titanic: " + CommandSupport.reasons(e));
            return CommonOptions.FAILED;
        }
        ZmtpContext ctx = names.apply(ZmtpContext.create(2));
        TitanicServer server = new TitanicServer(ctx, opened, settings);
        try {
            Futures.await(server.start(), Duration.ofSeconds(60));
        } catch (RuntimeException e) {
            if (e instanceof ReconnectStoppedException) {
                CommandSupport.reportClosedItself(spec.commandLine().getErr(), e); // a worker stopped while starting
            } else {
                spec.commandLine().getErr().println("titanic: cannot start: " + e.getMessage());
            }
            server.close();
            ctx.close(Duration.ofSeconds(2));
            opened.close();
            return CommonOptions.FAILED;
        }
        MdpOptions.runUntilStopped(server.terminated(), () -> { // it ends by itself when a worker stops reconnecting
            server.close();
            ctx.close(Duration.ofSeconds(2));
            opened.close();
            if (!quiet) {
                MdpOptions.line(out, "I: titanic stopped after " + server.storedRequests() + " request(s) stored, "
                        + server.storedReplies() + " repl" + (server.storedReplies() == 1 ? "y" : "ies") + " stored");
            }
        });
        Throwable why = CommandSupport.closedItself(server);
        return why != null ? CommandSupport.reportClosedItself(spec.commandLine().getErr(), why) : CommonOptions.OK;
    }

    private static Consumer<TitanicEvent> events(PrintWriter out, boolean quiet) {
        if (quiet) {
            return null;
        }
        return e -> MdpOptions.line(out, "I: " + e);
    }
}
