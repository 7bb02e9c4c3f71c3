package io.zmtp.benchmarks;

import org.zeromq.SocketType;
import org.zeromq.ZMQ;
import org.zeromq.ZMQException;

import java.nio.channels.ClosedSelectorException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The JeroMQ side of a benchmark: one JeroMQ context (one I/O thread, its default) and the peer
 * threads that serve the benchmark thread's socket, as a JeroMQ application would write them
 * (a thread per component, blocking receive or a poller). {@link #close()} terminates the
 * context, which ends every blocking call with ETERM; each peer thread then closes its own
 * sockets and exits.
 */
public final class JeromqPeers implements AutoCloseable {
    /** A peer's loop; it returns or throws when the context terminates. */
    @FunctionalInterface
    public interface PeerLoop {
        void run();
    }

    private final ZMQ.Context ctx = ZMQ.context(1);
    private final List<Thread> threads = new ArrayList<>();
    private final List<ZMQ.Socket> own = new ArrayList<>();
    private volatile boolean closing;

    /** A socket that drops what is unsent at close (linger 0). */
    public ZMQ.Socket socket(SocketType type) {
        ZMQ.Socket s = ctx.socket(type);
        s.setLinger(0);
        return s;
    }

    /** A socket of the benchmark thread, closed by {@link #close()} before the context terminates. */
    public ZMQ.Socket benchmarkSocket(SocketType type) {
        ZMQ.Socket s = socket(type);
        own.add(s);
        return s;
    }

    /** Binds and returns the endpoint bound (tcp port {@code *} resolved). */
    public static String bind(ZMQ.Socket s, String endpoint) {
        if (!s.bind(endpoint)) {
            throw new IllegalStateException("cannot bind " + endpoint);
        }
        return s.getLastEndpoint();
    }

    /** The endpoint to bind for a transport: an ephemeral loopback port, or a named inproc pipe. */
    public static String endpoint(String transport, String name) {
        switch (transport) {
            case "tcp":
                return "tcp://127.0.0.1:*";
            case "inproc":
                return "inproc://" + name;
            default:
                throw new IllegalArgumentException("transport " + transport);
        }
    }

    /**
     * Starts a peer thread that runs {@code loop} until the context terminates, then closes
     * {@code sockets}. The sockets were made on this thread; starting the thread is the full
     * memory barrier ZeroMQ asks for when a socket moves to another thread.
     */
    public void start(String name, PeerLoop loop, ZMQ.Socket... sockets) {
        Thread t = new Thread(() -> {
            try {
                loop.run();
            } catch (ZMQException | ClosedSelectorException | zmq.ZError.CtxTerminatedException e) {
                // the context terminated: the benchmark is over
            } finally {
                for (ZMQ.Socket s : sockets) {
                    s.close();
                }
            }
        }, name);
        t.setDaemon(true);
        threads.add(t);
        t.start();
    }

    /** A poller over {@code sockets}, for input. */
    public ZMQ.Poller pollerIn(ZMQ.Socket... sockets) {
        ZMQ.Poller p = ctx.poller(sockets.length);
        for (ZMQ.Socket s : sockets) {
            p.register(s, ZMQ.Poller.POLLIN);
        }
        return p;
    }

    /**
     * Whether the peers should keep running. A JeroMQ poller does not throw when its context
     * terminates (it keeps returning), so a polling loop checks this after each poll.
     */
    public boolean running() {
        return !closing;
    }

    @Override
    public void close() {
        closing = true;
        for (ZMQ.Socket s : own) {
            s.close();
        }
        ctx.term();
        for (Thread t : threads) {
            try {
                t.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
