package io.zmtp.interop;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A TCP relay that records what passes: listens on an ephemeral loopback port, and connects each
 * accepted connection to the target, copying bytes both ways and keeping a copy of everything.
 * While {@link #hold() held}, connections it accepts wait, open, until {@link #release()}: a link
 * that is slow to come up.
 */
final class TcpRelay implements AutoCloseable {
    private final ServerSocket listener;
    private final int targetPort;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    private final List<Socket> sockets = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final Object gate = new Object();
    private boolean held;
    /** Connections closed at once because the target refused them (it is down). */
    private final java.util.concurrent.atomic.AtomicInteger closedTargetDown = new java.util.concurrent.atomic.AtomicInteger();

    TcpRelay(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "relay-accept");
        acceptor.setDaemon(true);
        threads.add(acceptor);
        acceptor.start();
    }

    int port() {
        return listener.getLocalPort();
    }

    /** Connections accepted from now on wait before they are relayed, until {@link #release()}. */
    void hold() {
        synchronized (gate) {
            held = true;
        }
    }

    /** Relays the connections that wait, and every later one at once. */
    void release() {
        synchronized (gate) {
            held = false;
            gate.notifyAll();
        }
    }

    /** How many connections were accepted and closed because the target was down. */
    int closedTargetDown() {
        return closedTargetDown.get();
    }

    /** Everything relayed so far, both directions interleaved as it arrived. */
    byte[] captured() {
        synchronized (captured) {
            return captured.toByteArray();
        }
    }

    private void accept() {
        try {
            while (!listener.isClosed()) {
                Socket in = listener.accept();
                synchronized (gate) {
                    while (held) {
                        gate.wait();
                    }
                }
                Socket out;
                try {
                    out = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                } catch (IOException targetDown) {
                    closeQuietly(in); // as the target would: the peer reconnects later
                    closedTargetDown.incrementAndGet();
                    continue;
                }
                in.setTcpNoDelay(true);
                out.setTcpNoDelay(true);
                synchronized (sockets) {
                    sockets.add(in);
                    sockets.add(out);
                }
                pipe(in, out);
                pipe(out, in);
            }
        } catch (IOException e) {
            // closed
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void pipe(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16384];
            try (InputStream is = from.getInputStream(); OutputStream os = to.getOutputStream()) {
                int n;
                while ((n = is.read(buf)) > 0) {
                    synchronized (captured) {
                        captured.write(buf, 0, n);
                    }
                    os.write(buf, 0, n);
                    os.flush();
                }
            } catch (IOException e) {
                // one side closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "relay-pipe");
        t.setDaemon(true);
        synchronized (threads) {
            threads.add(t);
        }
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() throws Exception {
        listener.close();
        release();
        synchronized (sockets) {
            sockets.forEach(TcpRelay::closeQuietly);
        }
        List<Thread> all;
        synchronized (threads) {
            all = new ArrayList<>(threads);
        }
        for (Thread t : all) {
            t.join(5000);
        }
    }
}
