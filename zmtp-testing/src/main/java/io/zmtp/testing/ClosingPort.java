package io.zmtp.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback port that accepts each connection and resets it at once, counting them: a peer that
 * is down behind a proxy. A test waits for a client's reconnect attempts to arrive here (a
 * condition) instead of sleeping through an outage, then closes the port and starts the peer.
 */
public final class ClosingPort implements AutoCloseable {
    private final ServerSocket listener;
    private final AtomicInteger accepted = new AtomicInteger();
    private final Thread acceptor;

    public ClosingPort(int port) throws IOException {
        listener = new ServerSocket();
        listener.setReuseAddress(true);
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        acceptor = new Thread(this::run, "closing-port-" + port);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Connections accepted and reset so far. */
    public int accepted() {
        return accepted.get();
    }

    /** Waits until {@code n} connections came, failing the test after {@code deadline}. */
    public void awaitAccepted(int n, Duration deadline) {
        Await.until(deadline, () -> n + " connection attempts (" + accepted.get() + " came)", () -> accepted.get() >= n);
    }

    private void run() {
        while (!listener.isClosed()) {
            try (Socket s = listener.accept()) {
                s.setSoLinger(true, 0); // a reset: no TIME_WAIT on the port the peer will bind
                accepted.incrementAndGet();
            } catch (IOException closed) {
                // the listener closed, or one connection failed: the loop's condition decides
            }
        }
    }

    @Override
    public void close() throws InterruptedException, IOException {
        listener.close();
        acceptor.join(1000);
    }
}
