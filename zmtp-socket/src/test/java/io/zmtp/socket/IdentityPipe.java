package io.zmtp.socket;

import java.nio.charset.StandardCharsets;

/** A pipe that only carries an identity, for the routing table alone. */
final class IdentityPipe extends Pipe {
    IdentityPipe(ZmtpSocket socket, String identity) {
        super(socket.core(), io.zmtp.wire.ZmtpMetadata.builder()
                .put("Identity", identity.getBytes(StandardCharsets.US_ASCII)).build(),
                io.zmtp.wire.ZmtpVersion.V3_1, "test");
    }

    @Override
    boolean hasRoom() {
        return true;
    }

    @Override
    void write(Object msg) {
        io.netty.util.ReferenceCountUtil.release(msg);
    }

    @Override
    void flush() {
    }

    @Override
    void setReading(boolean on) {
    }

    @Override
    void close() {
    }

    @Override
    void closeAfterFlush(Runnable done) {
        done.run();
    }
}
