package io.zmtp.patterns.tripping;

import io.zmtp.patterns.kit.Futures;
import io.zmtp.socket.SocketEvent;
import io.zmtp.socket.ZmtpSocket;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Waits until a socket has a peer: the guide's client sleeps for this; we wait on the fact, a
 * future completed by the socket's first successful handshake (a monitor event), with a deadline.
 */
final class Connected {
    private static final Duration LIMIT = Duration.ofSeconds(10);

    private Connected() {
    }

    static void await(ZmtpSocket socket) {
        Futures.await(firstPeer(socket), LIMIT);
    }

    /** Completes on the socket's loop when it has a peer (at once if it has one already). */
    static CompletableFuture<Void> firstPeer(ZmtpSocket socket) {
        CompletableFuture<Void> connected = new CompletableFuture<>();
        socket.inLoop(() -> {
            if (socket.peerCount() > 0) { // the handshake happened before we looked
                connected.complete(null);
                return;
            }
            AutoCloseable monitor = socket.monitor(e -> {
                if (e.type() == SocketEvent.Type.HANDSHAKE_SUCCEEDED) {
                    connected.complete(null);
                }
            });
            connected.whenComplete((r, e) -> {
                try {
                    monitor.close();
                } catch (Exception ignored) {
                    // removing a monitor does not fail
                }
            });
        });
        return connected;
    }
}
