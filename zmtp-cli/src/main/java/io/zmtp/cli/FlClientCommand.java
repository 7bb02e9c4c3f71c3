package io.zmtp.cli;

import io.zmtp.patterns.kit.ComponentSettings;
import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.kit.LoopComponent;
import io.zmtp.patterns.freelance.BruteForceClient;
import io.zmtp.patterns.freelance.FailoverClient;
import io.zmtp.patterns.freelance.FreelanceClient;
import io.zmtp.patterns.freelance.FreelanceEvent;
import io.zmtp.patterns.kit.NoReplyException;
import io.zmtp.socket.SocketClosedException;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.ZmtpMessage;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * {@code zmtp flclient}: the guide's Freelance clients. Sends N requests ("random name") one after
 * the other and prints the average round-trip cost, as the guide's do.
 */
@Command(name = "flclient", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Freelance client: N requests, then the average round-trip cost.",
                "Model 1: each server in turn with a timeout (one server: retried). Model 2: every server at once, "
                        + "first reply wins. Model 3: an agent that pings the servers and sends to the first "
                        + "live one."},
        exitCodeListHeading = "Exit status:%n",
        exitCodeList = {"0:every request got its reply", "1:a request got no reply in time, or a wrong one",
                "2:bad options"})
public final class FlClientCommand implements Callable<Integer>, ConnectingCommand {

    @Spec
    CommandSpec spec;

    @Option(names = {"-m", "--model"}, defaultValue = "3", paramLabel = "1|2|3",
            description = "Which of the guide's models (default: ${DEFAULT-VALUE}).")
    int model;

    @Parameters(paramLabel = "ENDPOINT", arity = "1..*", description = "The servers.")
    List<String> endpoints;

    @Mixin
    CommonOptions.Requests requests = new CommonOptions.Requests(10000);

    @Option(names = {"-t", "--timeout"}, paramLabel = "DURATION",
            description = "Model 1: per server (1000ms); models 2 and 3: per request, global (2500ms, 5000ms)."
                    + " Model 3: longer than --server-ttl, or a request sent to a server that froze fails before"
                    + " the server counts as dead and the request goes to another.")
    String timeout;

    @Option(names = {"-r", "--retries"}, paramLabel = "N", defaultValue = "3",
            description = "Model 1 with a single server: tries per request (default: ${DEFAULT-VALUE}).")
    int retries;

    @Option(names = "--ping-interval", paramLabel = "DURATION", defaultValue = "1000ms",
            description = "Model 3: how often each server is pinged (default: ${DEFAULT-VALUE}).")
    String pingInterval;

    @Option(names = "--server-ttl", paramLabel = "DURATION", defaultValue = "3000ms",
            description = "Model 3: how long a silent server counts as alive (default: ${DEFAULT-VALUE}; longer"
                    + " than --ping-interval, shorter than --timeout; the guide's 2 s, 6 s and 3 s break that).")
    String serverTtl;

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
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        long count = requests.requests();
        Consumer<FreelanceEvent> listener = output.verbose() ? CommandSupport.printer(out, false) : null;
        ZmtpContext ctx = null;
        LoopComponent client;
        Function<ZmtpMessage, ZmtpMessage> request;
        boolean echo = model == 1;
        try {
            if (count < 0) {
                throw new IllegalArgumentException("--requests must not be negative");
            }
            SocketOptions options = socketOptions();
            ctx = CommandSupport.clientContext(names);
            switch (model) {
                case 1 -> {
                    FailoverClient.Settings.Builder b = FailoverClient.Settings.builder().endpoints(endpoints)
                            .retries(retries).socketOptions(options);
                    if (timeout != null) {
                        b.timeout(DurationConverter.parse("--timeout", timeout));
                    }
                    FailoverClient c = new FailoverClient(ctx, b.build(), listener);
                    client = c;
                    request = c::request;
                }
                case 2 -> {
                    BruteForceClient.Settings.Builder b = BruteForceClient.Settings.builder().endpoints(endpoints)
                            .socketOptions(options);
                    if (timeout != null) {
                        b.globalTimeout(DurationConverter.parse("--timeout", timeout));
                    }
                    BruteForceClient c = new BruteForceClient(ctx, b.build(), listener);
                    client = c;
                    request = c::request;
                }
                case 3 -> {
                    FreelanceClient.Settings.Builder b = FreelanceClient.Settings.builder().endpoints(endpoints)
                            .pingInterval(DurationConverter.parse("--ping-interval", pingInterval))
                            .serverTtl(DurationConverter.parse("--server-ttl", serverTtl)).socketOptions(options);
                    if (timeout != null) {
                        b.globalTimeout(DurationConverter.parse("--timeout", timeout));
                    }
                    FreelanceClient c = new FreelanceClient(ctx, b.build(), listener);
                    client = c;
                    request = c::request;
                }
                default -> throw new IllegalArgumentException("--model must be 1, 2 or 3");
            }
        } catch (IllegalArgumentException e) {
            err.println("flclient: " + e.getMessage());
            if (ctx != null) {
                ctx.close(Duration.ofSeconds(5));
            }
            return CommonOptions.USAGE;
        }
        try {
            Futures.await(client.start(), Duration.ofSeconds(30));
            long start = System.nanoTime(); // the command's stopwatch, not pattern code
            for (long i = 0; count == 0 || i < count; i++) { // -n 0: until stopped
                ZmtpMessage reply = request.apply(ZmtpMessage.ofStrings("random name"));
                try {
                    boolean ok = echo ? reply.size() == 1 && reply.frameString(0).equals("random name")
                            : reply.size() >= 1 && reply.frameString(0).equals("OK");
                    if (!ok) {
                        err.println("flclient: malformed reply to request " + (i + 1) + ": "
                                + io.zmtp.patterns.kit.Envelope.describe(reply));
                        return CommonOptions.FAILED;
                    }
                } finally {
                    reply.release();
                }
            }
            long micros = (System.nanoTime() - start) / 1000 / count;
            if (!output.quiet()) {
                out.println("Average round trip cost: " + micros + " usec");
                out.flush();
            }
            return CommonOptions.OK;
        } catch (NoReplyException | SocketClosedException e) {
            err.println("E: " + e.getMessage());
            return CommonOptions.FAILED;
        } catch (RuntimeException e) {
            err.println("flclient: " + CommandSupport.reason(e));
            return CommonOptions.FAILED;
        } finally {
            client.close();
            ctx.close(Duration.ofSeconds(5));
        }
    }
}
