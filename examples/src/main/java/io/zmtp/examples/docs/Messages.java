package io.zmtp.examples.docs;

// tag::imports[]
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.MessageHandler;
import io.zmtp.socket.RoutingId;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.Frames;
import io.zmtp.wire.LazyFrame;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

// in scope: ZmtpContext ctx
// end::imports[]

/** docs/messages.md: routing ids by reference, shared bodies, and byte arrays in JeroMQ's shape. */
public final class Messages {
    // tag::constants[]
    static final LazyFrame WORKER = RoutingId.ofText("W").frame();       // made once, kept
    static final ByteBuf BODY = Unpooled.unreleasableBuffer(            // a body sent many times
            Unpooled.directBuffer().writeBytes("the same body".getBytes(StandardCharsets.US_ASCII)));
    // end::constants[]

    public static void main(String[] args) throws Exception {
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            routingAndSharing(ctx);
            byteArrays(ctx);
            framesHandler(ctx);
        }
    }

    static void routingAndSharing(ZmtpContext ctx) {
        // tag::routing[]
        BlockingSocket router = ctx.blocking(SocketType.ROUTER);
        String endpoint = router.bind("tcp://127.0.0.1:0");
        BlockingSocket worker = ctx.blocking(SocketType.DEALER, SocketOptions.builder().identity("W").build())
                .connect(endpoint);
        worker.send("ready");
        ZmtpMessage ready = router.receive(Duration.ofSeconds(5));         // [W, ready]
        ready.release();
        router.send(ZmtpMessage.ofStrings("job").addFirst(WORKER));        // to the peer "W", no buffer made
        router.send(ZmtpMessage.ofShared(BODY).addFirst(WORKER));          // BODY's bytes, never copied
        // end::routing[]
        for (String expected : List.of("job", "the same body")) {
            Frames got = worker.receiveFrames(Duration.ofSeconds(5));
            if (got == null || !List.of(expected).equals(got.toStrings())) {
                throw new IllegalStateException("the worker got " + got);
            }
        }
        worker.close();
        router.close();
    }

    static void byteArrays(ZmtpContext ctx) {
        // tag::bytes[]
        BlockingSocket router = ctx.blocking(SocketType.ROUTER);
        String endpoint = router.bind("tcp://127.0.0.1:0");
        BlockingSocket dealer = ctx.blocking(SocketType.DEALER).connect(endpoint);
        byte[] body = "body".getBytes(StandardCharsets.UTF_8);
        dealer.sendMore("header").sendMore(new byte[0]).send(body);      // one three-frame message
        byte[] id = router.recv();                                        // frame by frame: [id, header, "", body]
        while (router.hasReceiveMore()) {
            byte[] next = router.recv();
        }
        router.send(Frames.of(id).add("reply"));                          // or whole messages
        Frames reply = dealer.receiveFrames(Duration.ofSeconds(5));       // reply.frame(0), toStrings()...
        String none = dealer.recvStr(Duration.ofMillis(10));              // null after the timeout
        // end::bytes[]
        if (!List.of("reply").equals(reply.toStrings()) || none != null) {
            throw new IllegalStateException("got " + reply + ", " + none);
        }
        dealer.close();
        router.close();
    }

    static void framesHandler(ZmtpContext ctx) {
        // tag::handler[]
        ZmtpSocket socket = ctx.socket(SocketType.ROUTER);
        socket.onMessage(MessageHandler.ofFrames(frames ->                // copied out, the message released
                socket.send(frames.add("seen").toMessage())));                // [routing id, ..., "seen"]
        // end::handler[]
        String endpoint;
        try {
            endpoint = socket.bind("tcp://127.0.0.1:0").get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        try (BlockingSocket dealer = ctx.blocking(SocketType.DEALER).connect(endpoint)) {
            dealer.send("hi");
            List<String> got = dealer.receiveStrings(Duration.ofSeconds(5));
            if (!List.of("hi", "seen").equals(got)) {
                throw new IllegalStateException("got " + got);
            }
        }
        socket.close();
    }

    private Messages() {
    }
}
