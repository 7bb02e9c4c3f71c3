package io.zmtp.cli;

import io.zmtp.patterns.kit.ComponentSettings;
import io.zmtp.patterns.kit.Envelope;
import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.binarystar.BinaryStarClient;
import io.zmtp.patterns.kit.NoReplyException;
import io.zmtp.patterns.kit.RequestEvent;
import io.zmtp.socket.SocketClosedException;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.ZmtpMessage;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Consumer;

/**
 * {@code zmtp bstarcli}: the guide's Binary Star client. Sends the numbers 1, 2, 3... to the pair,
 * checks each reply is its request, and fails over to the other server when a request times out.
 */
@Command(name = "bstarcli", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Binary Star client: numbered requests to a primary-backup pair, failing over on a timeout.",
                "After a timeout it waits the settle delay and resends to the other server."},
        exitCodeListHeading = "Exit status:%n",
        exitCodeList = {"0:every request got its reply", "1:a request got no reply from either server after its"
                + " tries, or a reply was wrong", "2:bad options"})
public final class BstarCliCommand implements Callable<Integer>, ConnectingCommand {

    @Spec
    CommandSpec spec;

    @Option(names = {"-e", "--endpoint"}, paramLabel = "ENDPOINT",
            description = "The two servers, primary first (default: tcp://localhost:5001 tcp://localhost:5002).")
    List<String> endpoints = new ArrayList<>();

    @Mixin
    CommonOptions.Retries retries = new CommonOptions.Retries(BinaryStarClient.Settings.Builder.DEFAULT_POLICY.timeout(),
            BinaryStarClient.Settings.Builder.DEFAULT_POLICY.tries());

    @Option(names = "--settle", paramLabel = "DURATION", defaultValue = "2s",
            description = "Wait after a timeout before connecting to the other server (default: ${DEFAULT-VALUE}).")
    String settle;

    @Option(names = "--pause", paramLabel = "DURATION", defaultValue = "1s",
            description = "Pause after each reply before the next request (default: ${DEFAULT-VALUE}, as the guide's).")
    String pause;

    @Mixin
    CommonOptions.Requests requests = new CommonOptions.Requests();

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
        BinaryStarClient.Settings settings;
        Duration pauseTime;
        try {
            if (count < 0) {
                throw new IllegalArgumentException("--requests must be 0 or more");
            }
            if (!endpoints.isEmpty() && endpoints.size() != 2) {
                throw new IllegalArgumentException("--endpoint: give both servers, primary first");
            }
            pauseTime = DurationConverter.parse("--pause", pause);
            BinaryStarClient.Settings.Builder b = BinaryStarClient.Settings.builder().timeout(retries.timeout())
                    .retries(retries.retries()).settle(DurationConverter.parse("--settle", settle))
                    .socketOptions(socketOptions());
            if (!endpoints.isEmpty()) {
                b.primary(endpoints.get(0)).backup(endpoints.get(1));
            }
            settings = b.build();
        } catch (IllegalArgumentException e) {
            err.println("bstarcli: " + e.getMessage());
            return CommonOptions.USAGE;
        }
        ZmtpContext ctx = CommandSupport.clientContext(names);
        BinaryStarClient client = null;
        Thread hook = null;
        try {
            client = new BinaryStarClient(ctx, settings, printer(out));
            line(out, "I: connecting to server at " + settings.endpoints().get(0) + "...");
            Futures.await(client.start(), Duration.ofSeconds(30));
            hook = CommandSupport.onShutdown(client::close);
            long i = 1;
            for (; count == 0 || i <= count; i++) {
                String request = Long.toString(i);
                ZmtpMessage reply = client.request(ZmtpMessage.ofStrings(request));
                try {
                    if (reply.size() != 1 || !reply.frameString(0).equals(request)) {
                        err.println("E: bad reply from server: " + Envelope.describe(reply));
                        return CommonOptions.FAILED;
                    }
                } finally {
                    reply.release();
                }
                line(out, "I: server replied OK (" + request + ")");
                if (!pauseTime.isZero() && (count == 0 || i < count)) {
                    Thread.sleep(pauseTime.toMillis());
                }
            }
            BinaryStarClient.Stats s = client.stats();
            line(out, "done: " + count + " requests, " + s.replies() + " replies, " + s.timeouts() + " timeouts, "
                    + s.failedOver() + " failed over, longest failover " + s.longestFailover().toMillis() + " ms");
            return CommonOptions.OK;
        } catch (NoReplyException e) {
            err.println("E: no reply from either server: " + CommandSupport.reason(e));
            return CommonOptions.FAILED;
        } catch (SocketClosedException e) {
            return CommonOptions.FAILED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CommonOptions.FAILED;
        } catch (IllegalArgumentException | IllegalStateException e) {
            err.println("bstarcli: " + CommandSupport.reason(e));
            return CommonOptions.FAILED;
        } finally {
            CommandSupport.removeShutdownHook(hook);
            if (client != null) {
                client.close();
            }
            ctx.close(Duration.ofSeconds(5));
        }
    }

    private void line(PrintWriter out, String s) {
        if (!output.quiet()) {
            synchronized (out) {
                out.println(s);
                out.flush();
            }
        }
    }

    /** The guide's lines for a failover; every event with --verbose. */
    private Consumer<RequestEvent> printer(PrintWriter out) {
        String[] next = new String[1]; // on the client's loop: the server a failover goes to
        return e -> {
            if (output.verbose()) {
                line(out, "D: " + e);
            }
            if (e instanceof RequestEvent.FailingOver f) {
                next[0] = f.endpoint();
                line(out, "W: no response from server, failing over");
            } else if (e instanceof RequestEvent.Sent && next[0] != null) {
                line(out, "I: connecting to server at " + next[0] + "...");
                next[0] = null;
            } else if (e instanceof RequestEvent.Failed f) {
                line(out, "W: no response from server, giving up on request " + f.request());
            }
        };
    }
}
