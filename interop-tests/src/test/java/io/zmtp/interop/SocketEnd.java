package io.zmtp.interop;

import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.PubSocket;
import io.zmtp.socket.RouterSocket;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One end of a socket pair in an interop test, a socket of ours or a libzmq socket, driven the
 * same way so that one test body covers both directions. Sends that cannot go anywhere yet wait
 * for a peer (ours queue; libzmq's block up to its 10 s send timeout); a ROUTER's send waits
 * until the peer named by the first frame is connected.
 */
abstract class SocketEnd implements AutoCloseable {
    private static final AtomicInteger IDS = new AtomicInteger();

    final SocketType type;

    SocketEnd(SocketType type) {
        this.type = type;
    }

    /** A socket of ours; {@code identity} may be null. */
    static Ours ours(ZmtpContext ctx, SocketType type, String identity) {
        return ours(ctx, type, identity, SocketOptions.builder());
    }

    static Ours ours(ZmtpContext ctx, SocketType type, String identity, SocketOptions.Builder options) {
        if (identity != null) {
            options.identity(identity);
        }
        return new Ours(ctx.blocking(type, options.reconnectInterval(Duration.ofMillis(20))
                .reconnectIntervalMax(Duration.ofMillis(200)).linger(Duration.ZERO).build()));
    }

    /** A libzmq socket in {@code peer}; {@code identity} may be null. */
    static Libzmq libzmq(LibzmqPeer peer, SocketType type, String identity) {
        String id = type.name().toLowerCase() + IDS.incrementAndGet();
        peer.socket(id, type.name()).opt(id, "LINGER", 0).opt(id, "RECONNECT_IVL", 20);
        if (identity != null) {
            peer.opt(id, "IDENTITY", ByteMessages.b(identity));
        }
        if (type == SocketType.ROUTER) {
            peer.opt(id, "ROUTER_MANDATORY", 1); // so that a send to a peer not yet connected says so
        }
        return new Libzmq(peer, type, id);
    }

    /**
     * Binds tcp on 127.0.0.1 (an ephemeral port), ws (ws://127.0.0.1, an ephemeral port, path
     * /zws) or ipc in {@code dir}; returns the endpoint bound.
     */
    abstract String bind(String transport, Path dir);

    abstract void connect(String endpoint);

    abstract void send(List<byte[]> frames);

    /** The next message, or null when none arrives within {@code ms}. */
    abstract List<byte[]> recv(long ms);

    /** SUB: subscribes; XSUB: sends the subscription message. */
    abstract void subscribe(String prefix);

    abstract void unsubscribe(String prefix);

    abstract boolean isOurs();

    @Override
    public abstract void close();

    List<byte[]> recv() {
        return recv(ByteMessages.T);
    }

    @Override
    public String toString() {
        return (isOurs() ? "our " : "libzmq ") + type;
    }

    static String ipcPath(Path dir) {
        return "ipc://" + dir.resolve("s" + IDS.incrementAndGet() + ".ipc");
    }

    /** Our socket, through its blocking facade. */
    static final class Ours extends SocketEnd {
        final BlockingSocket blocking;

        Ours(BlockingSocket blocking) {
            super(blocking.type());
            this.blocking = blocking;
        }

        ZmtpSocket socket() {
            return blocking.socket();
        }

        /** Runs {@code task} on the socket's event loop and returns its result. */
        <T> T onLoop(java.util.concurrent.Callable<T> task) {
            try {
                return socket().eventLoop().submit(task).get(ByteMessages.T, TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }

        int peerCount() {
            return onLoop(() -> socket().peerCount());
        }

        /** PUB: the number of distinct prefixes subscribed to. */
        int subscriptionCount() {
            return onLoop(() -> ((PubSocket) socket()).subscriptionCount());
        }

        @Override
        String bind(String transport, Path dir) {
            if (transport.equals("ws")) {
                return blocking.bind("ws://127.0.0.1:0/zws");
            }
            return blocking.bind(transport.equals("ipc") ? ipcPath(dir) : "tcp://127.0.0.1:0");
        }

        @Override
        void connect(String endpoint) {
            blocking.connect(endpoint);
        }

        @Override
        void send(List<byte[]> frames) {
            if (type == SocketType.ROUTER) {
                byte[] to = frames.get(0);
                ByteMessages.eventually(() -> this + " has a peer " + ByteMessages.show(List.of(to)),
                        () -> onLoop(() -> ((RouterSocket) socket()).hasPeer(to)));
            }
            blocking.send(ZmtpMessage.of(frames.toArray(new byte[0][])));
        }

        @Override
        List<byte[]> recv(long ms) {
            ZmtpMessage m = blocking.receive(Duration.ofMillis(ms));
            if (m == null) {
                return null;
            }
            try {
                List<byte[]> l = new ArrayList<>();
                for (int i = 0; i < m.size(); i++) {
                    l.add(m.frameBytes(i));
                }
                return l;
            } finally {
                m.release();
            }
        }

        @Override
        void subscribe(String prefix) {
            if (type == SocketType.XSUB) {
                send(ByteMessages.subscription(true, prefix));
            } else {
                blocking.subscribe(prefix);
            }
        }

        @Override
        void unsubscribe(String prefix) {
            if (type == SocketType.XSUB) {
                send(ByteMessages.subscription(false, prefix));
            } else {
                blocking.unsubscribe(ByteMessages.b(prefix));
            }
        }

        @Override
        boolean isOurs() {
            return true;
        }

        @Override
        public void close() {
            blocking.close(Duration.ZERO);
        }
    }

    /** A socket of the libzmq peer process. */
    static final class Libzmq extends SocketEnd {
        final LibzmqPeer peer;
        final String id;

        Libzmq(LibzmqPeer peer, SocketType type, String id) {
            super(type);
            this.peer = peer;
            this.id = id;
        }

        @Override
        String bind(String transport, Path dir) {
            if (transport.equals("ws")) {
                return peer.bind(id, "ws://127.0.0.1:*/zws");
            }
            return peer.bind(id, transport.equals("ipc") ? ipcPath(dir) : "tcp://127.0.0.1:*");
        }

        @Override
        void connect(String endpoint) {
            peer.connect(id, endpoint);
        }

        @Override
        void send(List<byte[]> frames) {
            byte[][] f = frames.toArray(new byte[0][]);
            long deadline = System.nanoTime() + ByteMessages.T * 1_000_000;
            while (true) {
                try {
                    peer.send(id, f);
                    return;
                } catch (LibzmqPeer.LibzmqError e) {
                    // ROUTER_MANDATORY: the named peer has not completed its handshake yet
                    if (!e.answer.contains("Host unreachable") || System.nanoTime() > deadline) {
                        throw e;
                    }
                    ByteMessages.pause();
                }
            }
        }

        @Override
        List<byte[]> recv(long ms) {
            return peer.recv(id, ms);
        }

        @Override
        void subscribe(String prefix) {
            if (type == SocketType.XSUB) {
                send(ByteMessages.subscription(true, prefix));
            } else {
                peer.subscribe(id, ByteMessages.b(prefix));
            }
        }

        @Override
        void unsubscribe(String prefix) {
            if (type == SocketType.XSUB) {
                send(ByteMessages.subscription(false, prefix));
            } else {
                peer.unsubscribe(id, ByteMessages.b(prefix));
            }
        }

        /** Sets an integer option (HEARTBEAT_IVL, XPUB_VERBOSE...). */
        Libzmq opt(String name, long value) {
            peer.opt(id, name, value);
            return this;
        }

        @Override
        boolean isOurs() {
            return false;
        }

        @Override
        public void close() {
            if (peer.isAlive()) {
                peer.close(id);
            }
        }

        @Override
        public String toString() {
            return "libzmq " + type + " (" + id + ")";
        }
    }
}
