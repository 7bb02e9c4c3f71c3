package io.zmtp.examples;

import io.zmtp.examples.netty.NoSocket;
import io.zmtp.examples.netty.OnePort;
import io.zmtp.examples.netty.OwnPipeline;
import io.zmtp.examples.netty.SharedLoops;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Runs each example of docs/NETTY.md and checks what it shows. */
class EmbeddingExamplesTest {
    static final Duration T = Duration.ofSeconds(10);
    ZmtpContext ctx;

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(2);
    }

    @AfterEach
    void stop() {
        ctx.close(Duration.ofSeconds(5));
    }

    @Test
    void ownPipelineJoinsASocketWithHandlersAroundTheCodec() throws Exception {
        OwnPipeline.Result r = OwnPipeline.run(ctx);
        assertEquals("pong", r.reply());
        assertTrue(r.bytesCounted() >= 64 + 4, "the handler before the codec saw the greeting and the message: "
                + r.bytesCounted());
        assertEquals("DEALER", r.peerType(), "the handler after the codec saw the handshake");
    }

    @Test
    void noSocketAtAllJustACodecAndAHandler() throws Exception {
        List<String> got = NoSocket.run(ctx, 100);
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            expected.add("message " + i);
        }
        assertEquals(expected, got);
    }

    @Test
    void onePortServesHttpAndZmtp() throws Exception {
        ZmtpSocket rep = ctx.socket(SocketType.REP);
        rep.onMessage(m -> {
            try {
                rep.send(ZmtpMessage.of("answer to ".getBytes(), m.frameBytes(0)));
            } finally {
                m.release();
            }
        });
        io.netty.channel.Channel server = OnePort.bind(rep, "hello over http");
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        try (BlockingSocket req = ctx.blocking(SocketType.REQ)) {
            req.connect("tcp://127.0.0.1:" + port);
            req.send("zmtp");
            assertEquals(List.of("answer to ", "zmtp"), req.receiveStrings(T));
            String http = httpGet(port, "/");
            assertTrue(http.startsWith("HTTP/1.1 200") && http.endsWith("hello over http"), http);
            req.send("again");
            assertEquals(List.of("answer to ", "again"), req.receiveStrings(T), "ZMTP still works after an HTTP client");
        } finally {
            server.close().sync();
        }
    }

    @Test
    void anHttpServersLoopsRunSocketsToo() throws Exception {
        try (SharedLoops app = new SharedLoops()) {
            String page = httpGet(app.httpPort(), "/orders/42");
            assertTrue(page.contains("queued by "), page);
            assertEquals("GET /orders/42", app.nextQueued(T));
        }
    }

    static String httpGet(int port, String path) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout((int) T.toMillis());
            s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
