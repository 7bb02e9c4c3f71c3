package io.zmtp.cli;

import io.zmtp.patterns.kit.ComponentSettings;
import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.lazypirate.LazyPirateClient;
import io.zmtp.patterns.kit.NoReplyException;
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
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code zmtp lpclient}: the guide's Lazy Pirate client. Sends the numbers 1, 2, 3... as requests
 * to an echo server (or a queue in front of workers that echo), checks that each reply is its
 * request, and gives up when a request gets no reply after its last try.
 */
@Command(name = "lpclient", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Lazy Pirate client: numbered requests, each retried on a new socket after a timeout.",
        exitCodeListHeading = "Exit status:%n",
        exitCodeList = {"0:every request got its reply", "1:the server seemed offline, or a reply was wrong",
                "2:bad options"})
public final class LpClientCommand implements Callable<Integer>, ConnectingCommand {

    @Spec
    CommandSpec spec;

    @Option(names = {"-e", "--endpoint"}, defaultValue = "tcp://localhost:5555",
            description = "Server or queue to connect to (default: ${DEFAULT-VALUE}).")
    String endpoint;

    @Mixin
    CommonOptions.Retries retries = new CommonOptions.Retries();

    @Mixin
    CommonOptions.Requests requests = new CommonOptions.Requests();

    @Option(names = "--correlate",
            description = "Tag requests with a request id and drop replies with another (ZMQ_REQ_CORRELATE).")
    boolean correlate;

    @Option(names = "--any-reply", description = "Accept any reply, not only an echo of the request.")
    boolean anyReply;

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
        LazyPirateClient.Settings settings;
        try {
            if (count < 0) {
                throw new IllegalArgumentException("--requests must be 0 or more");
            }
            settings = LazyPirateClient.Settings.builder().endpoint(endpoint).timeout(retries.timeout())
                    .retries(retries.retries()).correlate(correlate)
                    .socketOptions(socketOptions()).build();
        } catch (IllegalArgumentException e) {
            err.println("lpclient: " + e.getMessage());
            return CommonOptions.USAGE;
        }
        ZmtpContext ctx = CommandSupport.clientContext(names);
        LazyPirateClient client = null;
        Thread hook = null;
        try {
            client = new LazyPirateClient(ctx, settings, CommandSupport.printer(out, output.quiet()));
            Futures.await(client.start(), Duration.ofSeconds(30));
            hook = CommandSupport.onShutdown(client::close);
            for (long i = 1; count == 0 || i <= count; i++) {
                String request = Long.toString(i);
                ZmtpMessage reply = client.request(ZmtpMessage.ofStrings(request));
                try {
                    if (!anyReply && (reply.size() != 1 || !reply.frameString(0).equals(request))) {
                        err.println("lpclient: malformed reply to request " + request + ": "
                                + io.zmtp.patterns.kit.Envelope.describe(reply));
                        return CommonOptions.FAILED;
                    }
                } finally {
                    reply.release();
                }
            }
            if (!output.quiet()) {
                out.println("done: " + count + " requests, " + count + " replies");
                out.flush();
            }
            return CommonOptions.OK;
        } catch (NoReplyException | SocketClosedException e) {
            return CommonOptions.FAILED;
        } catch (IllegalArgumentException | IllegalStateException e) {
            err.println("lpclient: " + CommandSupport.reason(e));
            return CommonOptions.FAILED;
        } finally {
            CommandSupport.removeShutdownHook(hook);
            if (client != null) {
                client.close();
            }
            ctx.close(Duration.ofSeconds(5));
        }
    }
}
