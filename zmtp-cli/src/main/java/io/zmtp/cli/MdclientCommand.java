package io.zmtp.cli;

import io.zmtp.socket.SocketOptions;
import io.zmtp.patterns.majordomo.MajordomoAsyncClient;
import io.zmtp.patterns.majordomo.MajordomoClient;
import io.zmtp.patterns.majordomo.MajordomoClientSettings;
import io.zmtp.patterns.majordomo.MajordomoException;
import io.zmtp.patterns.majordomo.MajordomoReply;
import io.zmtp.patterns.majordomo.MdpVersion;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.Frames;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code zmtp mdclient}: sends N requests to a Majordomo service, one at a time (the guide's
 * mdclient) or all at once then every reply ({@code --async}, the guide's mdclient2), and prints
 * how many were answered and how fast. Exits 0 when every request got its final reply, 1 otherwise.
 */
@Command(name = "mdclient", mixinStandardHelpOptions = true,
        description = {"Sends N requests to a Majordomo service and prints the requests per second.",
                "One at a time, or with --async all first; with --quiet, only the summary line."},
        sortOptions = false,
        exitCodeListHeading = "Exit status:%n",
        exitCodeList = {"0:every request answered", "1:a request failed (no reply after every try)",
                "2:bad options"})
public final class MdclientCommand implements Callable<Integer>, ConnectingCommand {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    MdpOptions.Brokers brokers;

    @Option(names = {"-s", "--service"}, defaultValue = "echo", description = "the service (default: ${DEFAULT-VALUE})")
    String service;

    @Mixin
    CommonOptions.Requests requestCount = new CommonOptions.Requests(100000);

    @Option(names = "--async", description = "send every request first, then receive every reply")
    boolean async;

    @Option(names = "--protocol", defaultValue = "0.1", converter = MdpOptions.VersionConverter.class,
            description = "MDP version, 0.1 or 0.2 (default: ${DEFAULT-VALUE})")
    MdpVersion protocol;

    @Mixin
    CommonOptions.Retries tries = new CommonOptions.Retries(Duration.ofMillis(2500), 3);

    @Option(names = "--settle", defaultValue = "2000", converter = DurationConverter.class, paramLabel = "DURATION",
            description = "With several brokers: the wait after a timeout before the next broker is tried"
                    + " (default: ${DEFAULT-VALUE} ms; at least two state heartbeats of the pair).")
    Duration settle;

    @Mixin
    CommonOptions.Output output;

    @Mixin
    NameLookupOptions names = new NameLookupOptions();

    @Mixin
    ConnectionLossOptions connection = new ConnectionLossOptions();

    @Mixin
    SecurityOptions security;

    private long requests;
    private boolean quiet;

    @Parameters(arity = "0..*", description = "request body frames (default: \"Hello world\")")
    List<String> body = new ArrayList<>();

    /** The options of the command's sockets: security and connection-loss flags over the pattern's defaults. */
    SocketOptions socketOptions() {
        return connection.apply(security.apply(MajordomoClientSettings.builder().build().socketOptions().toBuilder())).build();
    }

    @Override
    public List<SocketOptions> connectingSocketOptions() {
        return List.of(socketOptions());
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        requests = requestCount.requests();
        quiet = output.quiet();
        if (requests < 0) {
            spec.commandLine().getErr().println("mdclient: --requests must not be negative");
            return CommonOptions.USAGE;
        }
        if (async && requestCount.needsACount("mdclient", "--async") != null) {
            spec.commandLine().getErr().println(requestCount.needsACount("mdclient", "--async"));
            return CommonOptions.USAGE;
        }
        Frames frames = Frames.ofStrings((body.isEmpty() ? List.of("Hello world") : body).toArray(String[]::new));
        MajordomoClientSettings.Builder settings;
        try {
            settings = MajordomoClientSettings.builder().version(protocol)
                    .timeout(tries.timeout()).retries(tries.retries()).failoverSettle(settle)
                    .socketOptions(socketOptions())
                    .listener(MdpOptions.events(out, quiet));
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println("mdclient: " + e.getMessage());
            return CommonOptions.USAGE;
        }
        if (output.verbose()) {
            settings.tracer(MdpOptions.tracer(out));
        }
        ZmtpContext ctx = CommandSupport.clientContext(names);
        long start = System.nanoTime();
        long answered;
        try {
            answered = async ? runAsync(ctx, settings.build(), frames, out) : runSync(ctx, settings.build(), frames, out);
        } finally {
            ctx.close(Duration.ofSeconds(2));
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        MdpOptions.line(out, String.format("%d requests/replies processed in %.3f s: %.0f requests per second (%s, %s)",
                answered, seconds, answered / Math.max(seconds, 1e-9), async ? "asynchronous" : "synchronous", protocol));
        return answered == requests ? CommonOptions.OK : CommonOptions.FAILED;
    }

    private long runSync(ZmtpContext ctx, MajordomoClientSettings settings, Frames frames, PrintWriter out) {
        long count = 0;
        try (MajordomoClient client = new MajordomoClient(ctx, brokers.list(), settings)) {
            client.start(); // connects in the background; requests wait behind it on the client's loop
            for (; requests == 0 || count < requests; count++) { // -n 0: until stopped
                client.request(service, null, frames);
            }
        } catch (MajordomoException e) {
            if (!quiet) {
                MdpOptions.line(out, "E: " + e.getMessage());
            }
        }
        return count;
    }

    private long runAsync(ZmtpContext ctx, MajordomoClientSettings settings, Frames frames, PrintWriter out) {
        long count = 0;
        Duration wait = tries.timeout().plus(brokers.list().size() > 1 ? settle : Duration.ZERO)
                .multipliedBy(tries.retries()).plusSeconds(1);
        try (MajordomoAsyncClient client = new MajordomoAsyncClient(ctx, brokers.list(), settings)) {
            client.start(); // connects in the background; requests wait behind it on the client's loop
            for (int i = 0; i < requests; i++) {
                client.send(service, frames);
            }
            int settled = 0;
            while (settled < requests) {
                MajordomoReply r;
                try {
                    r = client.receive(wait);
                } catch (MajordomoException e) {
                    settled++;
                    continue;
                }
                if (r == null) {
                    if (!quiet) {
                        MdpOptions.line(out, "E: no reply within " + wait.toMillis() + " ms, abandoning");
                    }
                    break;
                }
                if (r.isFinal()) {
                    settled++;
                    count++;
                }
            }
            if (settled > count && !quiet) {
                MdpOptions.line(out, "E: " + (settled - count) + " request(s) failed after " + tries.retries() + " attempts");
            }
        }
        return count;
    }
}
