package io.zmtp.socket;

import io.zmtp.testing.PeerBytes;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;

/**
 * A hand-driven TCP peer for attack tests: connects (optionally from a chosen loopback source
 * address), writes whatever bytes a test gives it, and tells whether the other side closed.
 */
final class RawPeer implements AutoCloseable {
    final Socket socket;

    private RawPeer(Socket socket) {
        this.socket = socket;
    }

    static int port(String endpoint) {
        return Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
    }

    /** Connects to {@code endpoint} from {@code source} (e.g. 127.0.0.2), or any address when null. */
    static RawPeer connect(String endpoint, String source) throws IOException {
        Socket s = new Socket();
        if (source != null) {
            s.bind(new InetSocketAddress(InetAddress.getByName(source), 0));
        }
        s.connect(new InetSocketAddress("127.0.0.1", port(endpoint)), 5000);
        s.setSoLinger(true, 0);
        return new RawPeer(s);
    }

    /** Connects and completes a ZMTP 3.1 NULL handshake as {@code socketType} (our side: greeting and READY). */
    static RawPeer handshaken(String endpoint, String source, String socketType) throws IOException {
        RawPeer p = connect(endpoint, source);
        p.write(PeerBytes.create().greeting31().ready("Socket-Type", socketType).toArray());
        return p;
    }

    /** Writes bytes; false when the other side has closed (or reset) the connection meanwhile. */
    boolean write(byte[] bytes) {
        try {
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Reads and discards until the other side closes; true if it did within {@code millis}, false
     * if the connection is still open then.
     */
    boolean closedWithin(long millis) {
        long end = System.currentTimeMillis() + millis;
        byte[] buf = new byte[65536];
        try {
            InputStream in = socket.getInputStream();
            while (true) {
                long left = end - System.currentTimeMillis();
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
            return true;   // reset
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
