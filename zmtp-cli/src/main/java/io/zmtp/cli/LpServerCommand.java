package io.zmtp.cli;

import io.zmtp.patterns.kit.FailureSimulation;
import io.zmtp.patterns.kit.WorkerEvent;
import io.zmtp.patterns.kit.WorkerSettings;
import io.zmtp.patterns.lazypirate.LazyPirateServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code zmtp lpserver}: the guide's Lazy Pirate server, a REP echo server. */
@Command(name = "lpserver", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Lazy Pirate server: a REP socket that echoes each request; runs until stopped.",
                "With --simulate-failures it crashes or stalls now and then, as the guide's does."},
        exitCodeListHeading = "Exit status:%n",
        exitCodeList = {"0:stopped", "1:cannot bind", "2:bad options", "3:a simulated crash"})
public final class LpServerCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = {"-e", "--endpoint"}, defaultValue = "tcp://*:5555",
            description = "Endpoint to bind (default: ${DEFAULT-VALUE}).")
    String endpoint;

    @Mixin
    CommonOptions.WorkerDemo demo;

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
        return CommandSupport.<WorkerSettings, WorkerEvent>runComponent(spec, "lpserver",
                "cannot bind " + endpoint, output, names,
                () -> demo.apply(LazyPirateServer.settings().endpoint(endpoint),
                        FailureSimulation.guideServer(), security, limits, output).build(),
                LazyPirateServer::new, WorkerEvent.Crashing.class);
    }
}
