package io.zmtp.examples.docs;

// tag::imports[]
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.ServerSocket;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

// in scope: ZmtpContext ctx
// end::imports[]

/** docs/draft-sockets.md: CLIENT and SERVER, PEER, SCATTER and GATHER, CHANNEL. */
public final class DraftSockets {
    static final Duration T = Duration.ofSeconds(5);

    public static void main(String[] args) throws Exception {
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            clientServer(ctx);
            reactorServer(ctx);
            peer(ctx);
            scatterGather(ctx);
            channel(ctx);
        }
    }

    static void clientServer(ZmtpContext ctx) {
        // tag::client-server[]
        BlockingSocket server = ctx.blocking(SocketType.SERVER);
        String endpoint = server.bind("tcp://127.0.0.1:0");
        BlockingSocket client = ctx.blocking(SocketType.CLIENT).connect(endpoint);

        client.send("hello");                                    // one frame per message
        String request = server.recvStr();
        int from = server.recvRoutingId();                       // the client's connection, a non-zero int
        server.sendTo(from, ("re: " + request).getBytes(StandardCharsets.UTF_8));
        String reply = client.recvStr();                         // "re: hello"
        // end::client-server[]
        check(reply.equals("re: hello"), "CLIENT/SERVER round trip");
        try {
            client.sendMore("two").send("frames");
            check(false, "a multipart send is refused");
        } catch (IllegalArgumentException expected) {
            // the thread-safe types take single frames only
        }
        client.close();
        server.close();
    }

    static void reactorServer(ZmtpContext ctx) throws Exception {
        // tag::reactor-server[]
        ServerSocket server = ctx.server(SocketOptions.DEFAULTS);
        server.onMessage(m -> {                                  // on the socket's event loop
            int from = m.routingId();
            ZmtpMessage reply = ZmtpMessage.of(m.frameBytes(0)).routingId(from);
            m.release();
            server.send(reply);                                  // an id not connected fails the future
        });
        String endpoint = server.bind("inproc://echo").get();
        // end::reactor-server[]
        BlockingSocket client = ctx.blocking(SocketType.CLIENT).connect(endpoint);
        client.send("echo");
        check("echo".equals(client.recvStr(T)), "reactor SERVER echo");
        client.close();
        server.close();
    }

    static void peer(ZmtpContext ctx) {
        // tag::peer[]
        BlockingSocket alice = ctx.blocking(SocketType.PEER);
        String endpoint = alice.bind("tcp://127.0.0.1:0");
        BlockingSocket bob = ctx.blocking(SocketType.PEER);
        int aliceId = bob.connectPeer(endpoint);                 // waits for the handshake; kept across reconnects

        bob.sendTo(aliceId, "hi alice".getBytes(StandardCharsets.UTF_8));
        String heard = alice.recvStr();
        alice.sendTo(alice.recvRoutingId(), "hi bob".getBytes(StandardCharsets.UTF_8));
        // end::peer[]
        check(heard.equals("hi alice"), "PEER to PEER");
        check("hi bob".equals(bob.recvStr(T)) && bob.recvRoutingId() == aliceId, "PEER answer by id");
        bob.close();
        alice.close();
    }

    static void scatterGather(ZmtpContext ctx) {
        // tag::scatter-gather[]
        BlockingSocket scatter = ctx.blocking(SocketType.SCATTER);
        String endpoint = scatter.bind("tcp://127.0.0.1:0");
        BlockingSocket gather = ctx.blocking(SocketType.GATHER).connect(endpoint);
        for (int i = 0; i < 3; i++) {
            scatter.send("task " + i);                           // round-robin over the GATHERs with room
        }
        // end::scatter-gather[]
        for (int i = 0; i < 3; i++) {
            check(("task " + i).equals(gather.recvStr(T)), "GATHER receives task " + i);
        }
        gather.close();
        scatter.close();
    }

    static void channel(ZmtpContext ctx) {
        // tag::channel[]
        ZmtpSocket left = ctx.socket(SocketType.CHANNEL);
        BlockingSocket right = ctx.blocking(SocketType.CHANNEL);
        right.bind("inproc://channel");
        left.connect("inproc://channel");
        left.send("over the one channel");
        // end::channel[]
        check("over the one channel".equals(right.recvStr(T)), "CHANNEL");
        left.close();
        right.close();
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException(what);
        }
    }

    private DraftSockets() {
    }
}
