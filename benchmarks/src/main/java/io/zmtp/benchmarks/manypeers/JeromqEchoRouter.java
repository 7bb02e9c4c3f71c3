package io.zmtp.benchmarks.manypeers;

import org.zeromq.SocketType;
import org.zeromq.ZMQ;

/**
 * JeroMQ's server of the many-peers echo benchmark (benchmarks/manypeers.sh): a ROUTER bound to
 * {@code --bind ENDPOINT} that sends every message back to the peer it came from (all its frames,
 * the routing id first), until killed; JeroMQ's defaults otherwise (one I/O thread, backlog 100,
 * high-water marks 1000). Prints the bound endpoint on stderr as {@code bound tcp://...}. The
 * twin of benchmarks/native/echo_router.c.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.zmtp.benchmarks.manypeers.JeromqEchoRouter --bind tcp://127.0.0.1:*
 * </pre>
 */
public final class JeromqEchoRouter {
    private JeromqEchoRouter() {
    }

    public static void main(String[] args) {
        String endpoint = PeerArgs.required(args, "--bind", "JeromqEchoRouter --bind ENDPOINT");
        ZMQ.Context ctx = ZMQ.context(1);
        ZMQ.Socket router = ctx.socket(SocketType.ROUTER);
        if (!router.bind(endpoint)) {
            System.err.println("cannot bind " + endpoint);
            System.exit(1);
        }
        System.err.println("bound " + router.getLastEndpoint());
        while (true) {
            byte[] frame = router.recv(0);
            router.send(frame, router.hasReceiveMore() ? ZMQ.SNDMORE : 0);
        }
    }
}
