package io.zmtp.patterns.tripping;

import io.zmtp.socket.ZmtpSocket;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Waits until a socket has a peer: the guide's client sleeps for this; we wait on the fact. */
final class Connected {
    private static final Duration LIMIT = Duration.ofSeconds(10);

    private Connected() {
    }

    static void await(ZmtpSocket socket) {
        long deadline = System.nanoTime() + LIMIT.toNanos();
        while (System.nanoTime() < deadline) {
            io.netty.util.concurrent.Future<Integer> peers = socket.eventLoop().submit(socket::peerCount);
            if (peers.awaitUninterruptibly(1, TimeUnit.SECONDS) && peers.isSuccess() && peers.getNow() > 0) {
                return;
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        throw new IllegalStateException(socket + " did not connect within " + LIMIT);
    }
}
