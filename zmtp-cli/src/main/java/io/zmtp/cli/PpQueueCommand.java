package io.zmtp.cli;

import io.zmtp.patterns.simplepirate.QueueEvent;
import io.zmtp.patterns.paranoidpirate.ParanoidPirateQueue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code zmtp ppqueue}: the guide's Paranoid Pirate queue (6/PPP). */
@Command(name = "ppqueue", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Paranoid Pirate queue: least-recently-used routing to workers it heartbeats, forgetting"
                + " silent ones; runs until stopped.",
        exitCodeListHeading = "Exit status:%n",
        exitCodeList = {"0:stopped", "1:cannot bind", "2:bad options"})
public final class PpQueueCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    CommonOptions.QueueEndpoints endpoints;

    @Mixin
    BoundLimits limits;

    @Mixin
    CommonOptions.Heartbeats heartbeat = new CommonOptions.Heartbeats();

    @Mixin
    CommonOptions.Output output;

    @Mixin
    NameLookupOptions names = new NameLookupOptions();

    @Mixin
    SecurityOptions security;

    @Override
    public Integer call() {
        return CommandSupport.<ParanoidPirateQueue.Settings, QueueEvent>runComponent(spec, "ppqueue",
                "cannot bind " + endpoints.describe(), output, names,
                () -> endpoints.apply(ParanoidPirateQueue.Settings.builder(), security, limits)
                        .heartbeat(heartbeat.heartbeat()).traceMessages(output.verbose()).build(),
                ParanoidPirateQueue::new, null);
    }
}
