package io.zmtp.examples.docs;

// tag::imports[]
import io.netty.channel.EventLoop;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpPoller;
import io.zmtp.socket.ZmtpProxy;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.Frames;
import io.zmtp.wire.SocketType;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

// in scope: ZmtpContext ctx
// end::imports[]

/** docs/coming-from-jeromq.md: ZMsg, ZPoller and ZMQ.proxy in this library's terms. */
public final class FromJeromq {
    public static void main(String[] args) throws Exception {
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            // tag::proxy[]
            EventLoop loop = ctx.group().next();                       // a proxy's two sockets share a loop
            ZmtpSocket frontend = ctx.socket(SocketType.ROUTER, SocketOptions.DEFAULTS, loop);
            ZmtpSocket backend = ctx.socket(SocketType.DEALER, SocketOptions.DEFAULTS, loop);
            String clients = frontend.bind("tcp://127.0.0.1:0").get();
            String workers = backend.bind("tcp://127.0.0.1:0").get();
            ZmtpProxy.start(frontend, backend);                        // returns at once; runs until one closes
            // end::proxy[]

            BlockingSocket worker = ctx.blocking(SocketType.REP).connect(workers);
            BlockingSocket client = ctx.blocking(SocketType.REQ).connect(clients);
            BlockingSocket other = ctx.blocking(SocketType.PULL);
            other.bind("tcp://127.0.0.1:0");
            Thread serving = new Thread(() -> {
                Frames request = worker.receiveFrames(Duration.ofSeconds(5));
                if (request != null) {
                    worker.send(request.add("served"));
                }
            });
            serving.start();
            client.send("job");

            pollBoth(client, other);
            serving.join();

            // tag::zmsg[]
            Frames msg = Frames.ofStrings("hello");                    // ZMsg: unmodifiable here
            msg = msg.push("worker-1".getBytes(StandardCharsets.UTF_8)) // ZMsg.push: a new Frames
                    .add("world");                                     // ZMsg.add
            byte[] address = msg.first();                              // ZMsg.peekFirst / pop
            Frames rest = msg.dropFirst(1);                            // [hello, world]
            List<String> text = rest.toStrings();
            // end::zmsg[]
            if (!List.of("hello", "world").equals(text) || address.length != 8) {
                throw new IllegalStateException("got " + text);
            }
        }
    }

    // tag::poller[]
    static void pollBoth(BlockingSocket client, BlockingSocket other) {
        try (ZmtpPoller poller = new ZmtpPoller()) {
            int replies = poller.register(client);                 // ZPoller.register(socket, POLLIN)
            int pushes = poller.register(other);
            if (poller.poll(Duration.ofSeconds(5)) > 0) {          // zmq_poll: how many have a message
                if (poller.readable(replies)) {
                    Frames reply = client.receiveFrames();         // there: no wait
                    System.out.println(reply.toStrings());         // [job, served]
                }
                if (poller.readable(pushes)) {
                    other.receiveFrames();
                }
            }
        }
    }
    // end::poller[]

    private FromJeromq() {
    }
}
