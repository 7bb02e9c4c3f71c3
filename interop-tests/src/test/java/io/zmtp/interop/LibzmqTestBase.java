package io.zmtp.interop;

import io.zmtp.socket.ZmtpContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The fixture of the socket-level interop tests: one libzmq peer process for the test class, a
 * context of our sockets for each test, and the socket ends a test opened, closed after it.
 */
abstract class LibzmqTestBase {
    static LibzmqPeer zmq;
    ZmtpContext ctx;
    final List<SocketEnd> ends = new ArrayList<>();
    @TempDir
    Path tmp;

    @BeforeAll
    static void startPeer() {
        zmq = LibzmqPeer.start();
    }

    @AfterAll
    static void stopPeer() {
        zmq.close();
    }

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(2);
    }

    @AfterEach
    void stop() {
        ends.forEach(SocketEnd::close);
        ctx.close(Duration.ofSeconds(5));
    }
}
