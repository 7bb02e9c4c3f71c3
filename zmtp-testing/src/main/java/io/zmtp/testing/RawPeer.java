package io.zmtp.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A hand-driven peer over loopback tcp, as an attacker would write one: it sends the bytes it is
 * given (built with {@link PeerBytes}) and reads only when told to. Sends can run on a thread of
 * their own, so a test is not blocked when the other side stops reading.
 */
public final class RawPeer implements AutoCloseable {
    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private final ExecutorService sender = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "raw-peer-sender");
        t.setDaemon(true);
        return t;
    });

    private RawPeer(Socket socket) throws IOException {
        this.socket = socket;
        this.out = socket.getOutputStream();
        this.in = socket.getInputStream();
    }

    /**
     * Connects to 127.0.0.1:{@code port}; {@code receiveBuffer} bytes of kernel receive buffer
     * (small for a peer that never reads), or 0 for the default.
     */
    public static RawPeer connect(int port, int receiveBuffer) throws IOException {
        Socket s = new Socket();
        if (receiveBuffer > 0) {
            s.setReceiveBufferSize(receiveBuffer);
        }
        s.setTcpNoDelay(true);
        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        return new RawPeer(s);
    }

    /** The port of a bound tcp endpoint ("tcp://127.0.0.1:40123"). */
    public static int port(String endpoint) {
        return Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
    }

    /**
     * Connects to the tcp {@code endpoint} from the loopback address {@code source} (127.0.0.2, ...:
     * a peer of another address), or from any address when null. Closing it resets the connection.
     */
    public static RawPeer connect(String endpoint, String source) throws IOException {
        Socket s = new Socket();
        if (source != null) {
            s.bind(new InetSocketAddress(InetAddress.getByName(source), 0));
        }
        s.connect(new InetSocketAddress("127.0.0.1", port(endpoint)), 5000);
        s.setSoLinger(true, 0);
        return new RawPeer(s);
    }

    /**
     * Whether a connection from {@code source} to {@code endpoint} is closed by the other side
     * within {@code millis}: a refused one. A refusal can reset the connection before connect()
     * returns (the server accepts and resets it faster than the connecting thread wakes), which
     * counts too; any other failure to connect (nothing listening) is thrown.
     */
    public static boolean refusedWithin(String endpoint, String source, long millis) throws IOException {
        RawPeer p;
        try {
            p = connect(endpoint, source);
        } catch (SocketException e) {
            if (e.getMessage() != null && e.getMessage().contains("reset")) {
                return true;
            }
            throw e;
        }
        try (p) {
            return p.closedWithin(millis);
        }
    }

    /** {@link #connect(String, String)}, then greeting and READY as {@code socketType}. */
    public static RawPeer handshaken(String endpoint, String source, String socketType) throws IOException {
        return connect(endpoint, source).handshake(socketType);
    }

    /** Greeting (ZMTP 3.1, NULL) and READY announcing {@code socketType}. */
    public RawPeer handshake(String socketType) throws IOException {
        return send(PeerBytes.create().greeting31().ready("Socket-Type", socketType).toArray());
    }

    public RawPeer send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
        return this;
    }

    /** Sends; false when the other side has closed (or reset) the connection meanwhile. */
    public boolean write(byte[] bytes) {
        try {
            send(bytes);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Reads and discards until the other side closes: true if it did within {@code millis}
     * (a reset counts), false if the connection is still open then.
     */
    public boolean closedWithin(long millis) {
        long end = System.nanoTime() + millis * 1_000_000;
        byte[] buf = new byte[64 * 1024];
        try {
            while (true) {
                long left = (end - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    return false;
                }
                socket.setSoTimeout((int) Math.max(1, left));
                if (in.read(buf) < 0) {
                    return true;
                }
            }
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    /** Sends on the peer's own thread; the future completes when every byte is in the kernel. */
    public CompletableFuture<Void> sendAsync(byte[] bytes) {
        return CompletableFuture.runAsync(() -> {
            try {
                out.write(bytes);
                out.flush();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, sender);
    }

    /** Reads whatever arrives until {@code n} bytes are read or the peer closes; returns the count. */
    public long drain(long n) throws IOException {
        byte[] b = new byte[64 * 1024];
        long total = 0;
        while (total < n) {
            int r = in.read(b, 0, (int) Math.min(b.length, n - total));
            if (r < 0) {
                break;
            }
            total += r;
        }
        return total;
    }

    /** The local port: how the server side names this connection. */
    public int localPort() {
        return socket.getLocalPort();
    }

    @Override
    public void close() {
        sender.shutdownNow();
        try {
            if (!socket.isClosed()) {
                socket.setSoLinger(true, 0);
                socket.close();
            }
        } catch (IOException e) {
            // closed anyway
        }
    }
}
