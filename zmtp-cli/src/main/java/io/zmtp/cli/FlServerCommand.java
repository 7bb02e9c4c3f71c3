package io.zmtp.cli;

import io.zmtp.patterns.kit.ComponentSettings;
import io.zmtp.patterns.freelance.FreelanceEvent;
import io.zmtp.patterns.freelance.FreelanceServer;
import io.zmtp.socket.SocketOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code zmtp flserver}: the guide's Freelance servers, models 1, 2 and 3. */
@Command(name = "flserver", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Freelance server; runs until stopped.",
                "Model 1: REP echo. Model 2: REP answering [sequence, body] with [sequence, OK].",
                "Model 3: ROUTER known by its endpoint (tcp://*:PORT is known as tcp://localhost:PORT), "
                        + "answering PING with PONG and [control, body] with [control, OK]."},
        exitCodeListHeading = "Exit status:%n",
        exitCodeList = {"0:stopped", "1:cannot bind", "2:bad options"})
public final class FlServerCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = {"-m", "--model"}, defaultValue = "3", paramLabel = "1|2|3",
            description = "Which of the guide's models (default: ${DEFAULT-VALUE}).")
    int model;

    @Parameters(index = "0", paramLabel = "ENDPOINT", defaultValue = "tcp://*:5555",
            description = "Endpoint to bind; model 3 uses it as its identity (default: ${DEFAULT-VALUE}).")
    String endpoint;

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
        return CommandSupport.<FreelanceServer.Settings, FreelanceEvent>runComponent(spec, "flserver",
                "cannot bind " + endpoint, output, names,
                () -> FreelanceServer.Settings.builder().model(model).endpoint(endpoint)
                        .socketOptions(limits.apply(security.apply(ComponentSettings.SOCKET_OPTIONS.toBuilder())).build())
                        .traceMessages(output.verbose()).build(),
                FreelanceServer::new, null);
    }
}
