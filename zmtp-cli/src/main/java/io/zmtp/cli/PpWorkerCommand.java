package io.zmtp.cli;

import io.zmtp.patterns.kit.ComponentSettings;
import io.zmtp.socket.SocketOptions;
import io.zmtp.patterns.kit.FailureSimulation;
import io.zmtp.patterns.kit.WorkerEvent;
import io.zmtp.patterns.paranoidpirate.ParanoidPirateWorker;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.List;
import java.util.concurrent.Callable;

/** {@code zmtp ppworker}: the guide's Paranoid Pirate worker (6/PPP), which echoes requests. */
@Command(name = "ppworker", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Paranoid Pirate worker: a DEALER that says READY, heartbeats the queue, echoes requests, and"
                + " reconnects with exponential backoff when the queue goes silent; runs until stopped.",
        exitCodeListHeading = "Exit status:%n",
        exitCodeList = {"0:stopped", "1:a bad endpoint, or stopped reconnecting to the queue (--reconnect-stop, or the queue's ERROR)", "2:bad options", "3:a simulated crash"})
public final class PpWorkerCommand implements Callable<Integer>, ConnectingCommand {

    @Spec
    CommandSpec spec;

    @Option(names = {"-e", "--endpoint"}, defaultValue = "tcp://localhost:5556",
            description = "The queue's backend (default: ${DEFAULT-VALUE}).")
    String endpoint;

    @Mixin
    CommonOptions.Heartbeats heartbeat = new CommonOptions.Heartbeats();

    @Mixin
    CommonOptions.Reconnect reconnect = new CommonOptions.Reconnect();

    @Mixin
    CommonOptions.WorkerDemo demo;

    @Mixin
    CommonOptions.Output output;

    @Mixin
    NameLookupOptions names = new NameLookupOptions();

    @Mixin
    ConnectionLossOptions connection = new ConnectionLossOptions();

    @Mixin
    SecurityOptions security;

    /** The options of the command's sockets: security and connection-loss flags over the pattern's defaults. */
    SocketOptions socketOptions() {
        return connection.apply(security.apply(ComponentSettings.SOCKET_OPTIONS.toBuilder())).build();
    }

    @Override
    public List<SocketOptions> connectingSocketOptions() {
        return List.of(socketOptions());
    }

    @Override
    public Integer call() {
        return CommandSupport.<ParanoidPirateWorker.Settings, WorkerEvent>runComponent(spec, "ppworker",
                "cannot connect to " + endpoint, output, names,
                () -> demo.apply(ParanoidPirateWorker.Settings.builder().endpoint(endpoint), FailureSimulation.guideWorker(),
                        socketOptions(), output).heartbeat(heartbeat.heartbeat()).reconnectInterval(reconnect.initial())
                        .reconnectIntervalMax(reconnect.max()).build(),
                ParanoidPirateWorker::new, WorkerEvent.Crashing.class);
    }
}
