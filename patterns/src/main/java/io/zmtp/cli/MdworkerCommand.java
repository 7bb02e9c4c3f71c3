package io.zmtp.cli;

import io.zmtp.patterns.majordomo.MajordomoHandler;
import io.zmtp.patterns.majordomo.MajordomoWorker;
import io.zmtp.patterns.majordomo.MajordomoWorkerSettings;
import io.zmtp.patterns.majordomo.MdpVersion;
import io.zmtp.socket.ZmtpContext;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code zmtp mdworker}: Majordomo echo workers (the guide's mdworker) until stopped (Ctrl-C).
 * With {@code --partials N} each request is first answered with N partial replies (streamed
 * under MDP/0.2, joined into the one reply under MDP/0.1).
 */
@Command(name = "mdworker", mixinStandardHelpOptions = true,
        description = {"Runs Majordomo echo workers until stopped.",
                "Prints one line per request served and per connection event, unless --quiet."})
public final class MdworkerCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = {"-c", "--connect"}, defaultValue = "tcp://localhost:5555",
            description = "the broker (default: ${DEFAULT-VALUE})")
    String connect;

    @Option(names = {"-s", "--service"}, defaultValue = "echo", description = "the service (default: ${DEFAULT-VALUE})")
    String service;

    @Option(names = "--protocol", defaultValue = "0.1", converter = MdpOptions.VersionConverter.class,
            description = "MDP version, 0.1 or 0.2 (default: ${DEFAULT-VALUE})")
    MdpVersion protocol;

    @Option(names = {"-n", "--workers"}, defaultValue = "1", description = "how many workers to run (default: ${DEFAULT-VALUE})")
    int workers;

    @Option(names = "--partials", defaultValue = "0",
            description = "partial replies before the final echo (default: ${DEFAULT-VALUE})")
    int partials;

    @Option(names = "--heartbeat", defaultValue = "2500", description = "heartbeat interval in ms (default: ${DEFAULT-VALUE})")
    long heartbeatMs;

    @Option(names = "--liveness", defaultValue = "3", description = "missed heartbeats before the broker is taken as lost (default: ${DEFAULT-VALUE})")
    int liveness;

    @Option(names = "--reconnect", defaultValue = "2500", description = "ms to wait before reconnecting to a lost broker (default: ${DEFAULT-VALUE})")
    long reconnectMs;

    @Option(names = {"-v", "--verbose"}, description = "print every message, as the guide's -v")
    boolean verbose;

    @Option(names = {"-q", "--quiet"}, description = "print nothing but errors")
    boolean quiet;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (workers < 1) {
            spec.commandLine().getErr().println("mdworker: --workers must be at least 1");
            return 2;
        }
        MajordomoWorkerSettings.Builder settings = MajordomoWorkerSettings.builder().version(protocol)
                .heartbeatInterval(Duration.ofMillis(heartbeatMs)).heartbeatLiveness(liveness)
                .reconnectDelay(Duration.ofMillis(reconnectMs))
                // echo never blocks: it runs on the worker's event loop
                .executor(Runnable::run)
                .listener(MdpOptions.events(out, quiet));
        if (verbose) {
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
        ZmtpContext ctx = ZmtpContext.create(1);
        List<MajordomoWorker> running = new ArrayList<>();
        try {
            for (int i = 0; i < workers; i++) {
                running.add(new MajordomoWorker(ctx, connect, service, echo, settings.build()).start());
            }
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println("mdworker: " + e.getMessage());
            ctx.close(Duration.ofSeconds(2));
            return 2;
        }
        if (!quiet) {
            MdpOptions.line(out, "I: " + workers + " " + protocol + " worker(s) for '" + service + "' connecting to " + connect);
        }
        MdpOptions.runUntilStopped(() -> {
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
        return 0;
    }

    static String text(List<byte[]> frames) {
        List<String> l = new ArrayList<>(frames.size());
        for (byte[] f : frames) {
            l.add(new String(f, StandardCharsets.UTF_8));
        }
        return l.toString();
    }
}
