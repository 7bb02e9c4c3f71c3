package io.zmtp.testing;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A tcp port that is free now, for a server that binds it later (a process the test starts, the
 * second server of a pair whose peer must know it in advance).
 *
 * <p>Not from the kernel's ephemeral range (what {@code new ServerSocket(0)} picks): between the
 * test's look and the server's bind, the kernel may give that same port to any outgoing connection
 * (a reconnecting peer, another test in the other surefire JVM) as its source port, and the bind
 * then fails with "Address already in use", which happened. Ports below the ephemeral range
 * (Linux: 32768 and up) are never handed out that way; a random one is taken and checked.
 */
public final class FreePorts {
    /** The lowest port handed out. */
    public static final int FIRST = 20_000;
    /** One above the highest: the start of Linux's default ephemeral range. */
    public static final int END = 32_768;

    private FreePorts() {
    }

    /** A port in [{@link #FIRST}, {@link #END}) that nothing listens on or connects from now. */
    public static int next() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 1_000; attempt++) {
            int port = r.nextInt(FIRST, END);
            try (ServerSocket s = new ServerSocket()) {
                s.setReuseAddress(false);
                s.bind(new InetSocketAddress(port));
                return port;
            } catch (IOException inUse) {
                // taken: try another
            }
        }
        throw new IllegalStateException("no free port in [" + FIRST + ", " + END + ") after 1,000 tries");
    }

    /**
     * A udp port in [{@link #FIRST}, {@link #END}) that no datagram socket holds now, for a udp://
     * endpoint a test binds later (libzmq reports no port for a udp bind to port 0): out of the
     * ephemeral range for the same reason as {@link #next()}, as every connected datagram
     * socket takes a source port from it.
     */
    public static int nextUdp() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 1_000; attempt++) {
            int port = r.nextInt(FIRST, END);
            try (DatagramSocket s = new DatagramSocket(null)) {
                s.setReuseAddress(false);
                s.bind(new InetSocketAddress(port));
                return port;
            } catch (IOException inUse) {
                // taken: try another
            }
        }
        throw new IllegalStateException("no free udp port in [" + FIRST + ", " + END + ") after 1,000 tries");
    }

    /** {@code tcp://127.0.0.1:} and {@link #next()}. */
    public static String loopbackEndpoint() {
        return "tcp://127.0.0.1:" + next();
    }

    /** The tcp port of an endpoint such as tcp://127.0.0.1:40123. */
    public static int port(String endpoint) {
        return Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
    }
}
