package io.zmtp.cli;

import io.zmtp.socket.SocketOptions;
import io.zmtp.patterns.majordomo.MajordomoHandler;
import io.zmtp.patterns.majordomo.MajordomoWorker;
import io.zmtp.patterns.majordomo.MajordomoWorkerSettings;
import io.zmtp.patterns.majordomo.MdpVersion;
import io.zmtp.patterns.kit.Heartbeat;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.Frames;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code zmtp mdworker}: Majordomo echo workers (the guide's mdworker) until stopped (Ctrl-C), or
 * until a worker's socket stopped reconnecting to its broker (every broker, given several): then
 * one {@code E:} line on stderr says where and why, and the status is 1.
 * With {@code --partials N} each request is first answered with N partial replies (streamed
 * under MDP/0.2, joined into the one reply under MDP/0.1).
 */
@Command(name = "mdworker", mixinStandardHelpOptions = true,
        description = {"Runs Majordomo echo workers until stopped.",
                "Prints one line per request served and per connection event, unless --quiet."},
        sortOptions = false,
        exitCodeListHeading = "Exit status:%n",
        exitCodeList = {"0:stopped", "1:stopped reconnecting to the broker (--reconnect-stop, or the broker's ERROR)",
                "2:bad options"})
public final class MdworkerCommand implements Callable<Integer>, ConnectingCommand {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    MdpOptions.Brokers brokers;

    @Option(names = {"-s", "--service"}, defaultValue = "echo", description = "the service (default: ${DEFAULT-VALUE})")
    String service;

    @Option(names = "--protocol", defaultValue = "0.1", converter = MdpOptions.VersionConverter.class,
            description = "MDP version, 0.1 or 0.2 (default: ${DEFAULT-VALUE})")
    MdpVersion protocol;

    @Option(names = "--workers", description = "How many workers to run (default: ${DEFAULT-VALUE}).")
    int workers = 1;

    /** The older short name of --workers (-n is --requests in the client commands). */
    @Option(names = "-n", hidden = true, description = "Same as --workers.")
    void workersShort(int n) {
        this.workers = n;
    }

    @Option(names = "--partials", defaultValue = "0",
            description = "partial replies before the final echo (default: ${DEFAULT-VALUE})")
    int partials;

    @Mixin
    CommonOptions.Heartbeats heartbeat = new CommonOptions.Heartbeats(Duration.ofMillis(2500), 3);

    /** The older name of --interval (milliseconds). */
    @Option(names = "--heartbeat", hidden = true, description = "Same as --interval.")
    void heartbeatMs(String interval) {
        heartbeat.interval = interval;
    }

    @Mixin
    CommonOptions.Reconnect reconnect = new CommonOptions.Reconnect(Duration.ofMillis(2500), Duration.ofMillis(2500));

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
        return connection.apply(security.apply(MajordomoWorkerSettings.builder().build().socketOptions().toBuilder())).build();
    }

    @Override
    public List<SocketOptions> connectingSocketOptions() {
        return List.of(socketOptions());
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        boolean quiet = output.quiet();
        if (workers < 1) {
            spec.commandLine().getErr().println("mdworker: --workers must be at least 1");
            return CommonOptions.USAGE;
        }
        MajordomoWorkerSettings.Builder settings;
        try {
            Heartbeat hb = heartbeat.heartbeat();
            settings = MajordomoWorkerSettings.builder().version(protocol)
                    .heartbeatInterval(hb.interval()).heartbeatLiveness(hb.liveness())
                    .reconnectDelay(reconnect.initial()).reconnectDelayMax(reconnect.max())
                    .socketOptions(socketOptions())
                    // echo never blocks: it runs on the worker's event loop
                    .executor(Runnable::run)
                    .listener(MdpOptions.events(out, quiet));
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println("mdworker: " + e.getMessage());
            return CommonOptions.USAGE;
        }
        if (output.verbose()) {
            settings.tracer(MdpOptions.tracer(out));
        }
        AtomicLong served = new AtomicLong();
        MajordomoHandler echo = (request, replies) -> {
            long n = served.incrementAndGet();
            for (int i = 1; i <= partials; i++) {
                replies.partial(request);
            }
            replies.finish(request);
            if (!quiet) {
                MdpOptions.line(out, "I: " + service + " request " + n + ": " + text(request));
            }
        };
        ZmtpContext ctx = names.apply(ZmtpContext.create(1));
        List<MajordomoWorker> running = new ArrayList<>();
        try {
            for (int i = 0; i < workers; i++) {
                MajordomoWorker w = new MajordomoWorker(ctx, brokers.list(), service, echo, settings.build());
                w.start();
                running.add(w);
            }
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println("mdworker: " + e.getMessage());
            ctx.close(Duration.ofSeconds(2));
            return CommonOptions.USAGE;
        }
        if (!quiet) {
            MdpOptions.line(out, "I: " + workers + " " + protocol + " worker(s) for '" + service + "' connecting to " + String.join(", ", brokers.list()));
        }
        // a worker whose socket stopped reconnecting closes itself; the others would stop the same way
        CompletableFuture<?> anyClosed = CompletableFuture.anyOf(running.stream()
                .map(w -> w.terminated().toCompletableFuture()).toArray(CompletableFuture[]::new));
        MdpOptions.runUntilStopped(anyClosed, () -> {
            for (MajordomoWorker w : running) {
                w.closeAsync();
            }
            for (MajordomoWorker w : running) {
                w.close();
            }
            ctx.close(Duration.ofSeconds(2));
            if (!quiet) {
                MdpOptions.line(out, "I: workers stopped after " + served.get() + " request(s)");
            }
        });
        for (MajordomoWorker w : running) {
            Throwable why = CommandSupport.closedItself(w);
            if (why != null) {
                return CommandSupport.reportClosedItself(spec.commandLine().getErr(), why); // one line for all of them
            }
        }
        return CommonOptions.OK;
    }

    static String text(Frames frames) {
        return frames.toStrings().toString();
    }
}
