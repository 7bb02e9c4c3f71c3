package io.zmtp.testing;

import io.zmtp.wire.ZmtpOptions;

/**
 * Two codecs talking to each other over {@link CodecHarness}es: {@link #pump} moves the bytes each
 * writes to the other until both are quiet, and closes a side whose peer closed (after delivering
 * the closed side's last bytes), as TCP would.
 */
public final class CodecPair implements AutoCloseable {
    public final CodecHarness client;
    public final CodecHarness server;
    /** Every byte the client sent, then every byte the server sent (a capture of the link). */
    public final java.io.ByteArrayOutputStream clientToServer = new java.io.ByteArrayOutputStream();
    public final java.io.ByteArrayOutputStream serverToClient = new java.io.ByteArrayOutputStream();

    public CodecPair(ZmtpOptions clientOptions, ZmtpOptions serverOptions) {
        this.client = new CodecHarness(clientOptions);
        this.server = new CodecHarness(serverOptions);
    }

    /** Shuttles bytes until neither side writes anything more. */
    public CodecPair pump() {
        for (int round = 0; round < 10_000; round++) {
            byte[] c = client.written();
            byte[] s = server.written();
            clientToServer.writeBytes(c);
            serverToClient.writeBytes(s);
            if (c.length > 0) {
                server.feed(c);
            }
            if (s.length > 0) {
                client.feed(s);
            }
            if (c.length == 0 && s.length == 0) {
                if (!client.channel.isOpen() && server.channel.isOpen()) {
                    server.peerClosed();
                } else if (!server.channel.isOpen() && client.channel.isOpen()) {
                    client.peerClosed();
                } else {
                    return this;
                }
            }
        }
        throw new AssertionError("the codecs kept talking for 10000 rounds");
    }

    /** Advances both sides' clocks (timers: heartbeats, handshake timeout), then pumps. */
    public CodecPair advance(long ms) {
        client.advance(ms);
        server.advance(ms);
        return pump();
    }

    @Override
    public void close() {
        client.close();
        server.close();
    }
}
