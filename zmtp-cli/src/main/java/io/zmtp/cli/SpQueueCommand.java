package io.zmtp.cli;

import io.zmtp.patterns.simplepirate.QueueEvent;
import io.zmtp.patterns.simplepirate.SimplePirateQueue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code zmtp spqueue}: the guide's Simple Pirate queue. */
@Command(name = "spqueue", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Simple Pirate queue: least-recently-used routing from clients to workers that said READY;"
                + " runs until stopped.",
        exitCodeListHeading = "Exit status:%n",
        exitCodeList = {"0:stopped", "1:cannot bind", "2:bad options"})
public final class SpQueueCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    CommonOptions.QueueEndpoints endpoints;

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
        return CommandSupport.<SimplePirateQueue.Settings, QueueEvent>runComponent(spec, "spqueue",
                "cannot bind " + endpoints.describe(), output, names,
                () -> endpoints.apply(SimplePirateQueue.Settings.builder(), security, limits).traceMessages(output.verbose())
                        .build(),
                SimplePirateQueue::new, null);
    }
}
