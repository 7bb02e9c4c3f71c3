package io.zmtp.cli;

import io.zmtp.patterns.lazypirate.LazyPirateClient;
import io.zmtp.patterns.lazypirate.NoReplyException;
import io.zmtp.socket.SocketClosedException;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.ZmtpMessage;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * {@code zmtp lpclient}: the guide's Lazy Pirate client. Sends the numbers 1, 2, 3... as requests
 * to an echo server (or a queue in front of workers that echo), checks that each reply is its
 * request, and gives up when a request gets no reply after its last try.
 */
@Command(name = "lpclient", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Lazy Pirate client: numbered requests, each retried on a new socket after a timeout.",
                "Exit status: 0 when every request got its reply, 1 when the server seemed offline or a reply was wrong."})
public final class LpClientCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = {"-e", "--endpoint"}, defaultValue = "tcp://localhost:5555",
            description = "Server or queue to connect to (default: ${DEFAULT-VALUE}).")
    String endpoint;

    @Option(names = {"-t", "--timeout"}, defaultValue = "2500ms", converter = DurationConverter.class,
            description = "How long one try waits for its reply (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(names = {"-r", "--retries"}, defaultValue = "3",
            description = "Tries per request before giving up, the first included (default: ${DEFAULT-VALUE}).")
    int retries;

    @Option(names = {"-n", "--count"}, defaultValue = "0",
            description = "Requests to send; 0 sends until stopped (default: ${DEFAULT-VALUE}).")
    long count;

    @Option(names = "--correlate",
            description = "Tag requests with a request id and drop replies with another (ZMQ_REQ_CORRELATE).")
    boolean correlate;

    @Option(names = "--any-reply", description = "Accept any reply, not only an echo of the request.")
    boolean anyReply;

    @Option(names = {"-q", "--quiet"}, description = "Print nothing (the exit status tells the outcome).")
    boolean quiet;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (count < 0 || retries < 1 || timeout.isZero()) {
            err.println("lpclient: --count must be 0 or more, --retries at least 1, --timeout positive");
            return 2;
        }
        ZmtpContext ctx = ZmtpContext.create(1);
        LazyPirateClient client = null;
        Thread hook = null;
        try {
            client = new LazyPirateClient(ctx, LazyPirateClient.Settings.builder().endpoint(endpoint)
                    .timeout(timeout).retries(retries).correlate(correlate).build(),
                    CommandSupport.printer(out, quiet));
            client.start();
            LazyPirateClient c = client;
            hook = new Thread(c::close, "zmtp-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
            for (long i = 1; count == 0 || i <= count; i++) {
                String request = Long.toString(i);
                ZmtpMessage reply = client.request(ZmtpMessage.ofStrings(request));
                try {
                    if (!anyReply && (reply.size() != 1 || !reply.frameString(0).equals(request))) {
                        err.println("lpclient: malformed reply to request " + request + ": "
                                + io.zmtp.patterns.Envelope.describe(reply));
                        return 1;
                    }
                } finally {
                    reply.release();
                }
            }
            if (!quiet) {
                out.println("done: " + count + " requests, " + count + " replies");
                out.flush();
            }
            return 0;
        } catch (NoReplyException | SocketClosedException e) {
            return 1;
        } catch (IllegalArgumentException | IllegalStateException e) {
            err.println("lpclient: " + CommandSupport.reason(e));
            return 1;
        } finally {
            if (hook != null) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // the hook is running
                }
            }
            if (client != null) {
                client.close();
            }
            ctx.close(Duration.ofSeconds(5));
        }
    }
}
