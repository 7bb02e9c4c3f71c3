package io.zmtp.patterns.majordomo;

import io.netty.buffer.ByteBuf;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.Frames;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

/** Helpers for the Majordomo tests: deadlines, event recorders, and raw MDP peers over plain sockets. */
final class MdpTesting {
    static final Duration T = Duration.ofSeconds(10);
    /** How long a test waits to conclude that nothing arrives. */
    static final Duration QUIET = Duration.ofMillis(150);
    /** Socket options that reconnect quickly (broker restarts in tests). */
    static final SocketOptions FAST_RECONNECT = SocketOptions.builder().linger(Duration.ZERO)
            .reconnectInterval(Duration.ofMillis(20)).reconnectIntervalMax(Duration.ofMillis(100)).build();

    private MdpTesting() {
    }

    /** Starts a component and waits (up to {@link #T}) for its start to complete; returns it. */
    static <C extends io.zmtp.patterns.kit.LoopComponent> C started(C c) {
        io.zmtp.patterns.kit.Futures.await(c.start(), T);
        return c;
    }

    static void eventually(String what, BooleanSupplier condition) {
        eventually(() -> what, condition);
    }

    static void eventually(Supplier<String> what, BooleanSupplier condition) {
        io.zmtp.testing.Await.until(T, what, condition);
    }

    /** The frames of a message as text (printable) or hex, and the message released. */
    static List<String> render(ZmtpMessage m) {
        try {
            List<String> l = new ArrayList<>(m.size());
            for (int i = 0; i < m.size(); i++) {
                ByteBuf f = m.frame(i);
                l.add(f.isReadable() ? MessageDump.frameText(f) : "");
            }
            return l;
        } finally {
            m.release();
        }
    }

    /** Records the events of a component. */
    static final class Events implements Consumer<MajordomoEvent> {
        final List<MajordomoEvent> seen = new CopyOnWriteArrayList<>();

        @Override
        public void accept(MajordomoEvent e) {
            seen.add(e);
        }

        long count(MajordomoEvent.Type t) {
            return seen.stream().filter(e -> e.type() == t).count();
        }

        boolean has(MajordomoEvent.Type t) {
            return count(t) > 0;
        }

        MajordomoEvent await(MajordomoEvent.Type t) {
            return await(t, e -> true);
        }

        MajordomoEvent await(MajordomoEvent.Type t, Predicate<MajordomoEvent> p) {
            MajordomoEvent[] found = new MajordomoEvent[1];
            eventually(() -> "event " + t + " (seen " + seen + ")", () -> {
                for (MajordomoEvent e : seen) {
                    if (e.type() == t && p.test(e)) {
                        found[0] = e;
                        return true;
                    }
                }
                return false;
            });
            return found[0];
        }

        void awaitCount(MajordomoEvent.Type t, long n) {
            eventually(() -> n + " events " + t + " (seen " + seen + ")", () -> count(t) >= n);
        }
    }

    /** A hand-driven MDP worker on a DEALER socket, speaking one version frame by frame. */
    static final class RawWorker implements AutoCloseable {
        final BlockingSocket socket;
        final MdpVersion version;

        RawWorker(ZmtpContext ctx, String endpoint, MdpVersion version) {
            this.socket = ctx.blocking(SocketType.DEALER, SocketOptions.builder().linger(Duration.ZERO).build());
            this.version = version;
            socket.connect(endpoint);
        }

        RawWorker ready(String service) {
            socket.send(MdpProtocol.ready(version, service));
            return this;
        }

        void command(MdpVersion.WorkerCommand c) {
            socket.send(MdpProtocol.workerCommand(version, c));
        }

        void reply(MdpVersion.WorkerCommand c, byte[] client, String... body) {
            socket.send(MdpProtocol.workerReply(version, c, client, Frames.ofStrings(body)));
        }

        /** The next message from the broker, heartbeats skipped, as rendered frames. */
        List<String> next() {
            long deadline = System.nanoTime() + T.toNanos();
            while (System.nanoTime() < deadline) {
                ZmtpMessage m = socket.receive(T);
                if (m == null) {
                    break;
                }
                if (isCommand(m, MdpVersion.WorkerCommand.HEARTBEAT)) {
                    m.release();
                    continue;
                }
                return render(m);
            }
            throw new AssertionError("worker received nothing within " + T);
        }

        /** The next message including heartbeats, or null after {@code wait}. */
        ZmtpMessage poll(Duration wait) {
            return socket.receive(wait);
        }

        /** The next non-heartbeat message within {@code wait}, or null. */
        List<String> pollNonHeartbeat(Duration wait) {
            long deadline = System.nanoTime() + wait.toNanos();
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                ZmtpMessage m = socket.receive(Duration.ofNanos(left));
                if (m == null) {
                    return null;
                }
                if (isCommand(m, MdpVersion.WorkerCommand.HEARTBEAT)) {
                    m.release();
                    continue;
                }
                return render(m);
            }
        }

        /** A REQUEST: returns the client address; checks the layout and the body. */
        byte[] expectRequest(String... body) {
            ZmtpMessage m = null;
            long deadline = System.nanoTime() + T.toNanos();
            while (System.nanoTime() < deadline) {
                m = socket.receive(T);
                if (m != null && isCommand(m, MdpVersion.WorkerCommand.HEARTBEAT)) {
                    m.release();
                    m = null;
                    continue;
                }
                break;
            }
            if (m == null) {
                throw new AssertionError("no REQUEST within " + T);
            }
            int i = version.leadingEmptyFrame() ? 1 : 0;
            byte[] client = m.frameBytes(i + 2);
            List<String> frames = render(m);
            List<String> expected = new ArrayList<>();
            if (version.leadingEmptyFrame()) {
                expected.add("");
            }
            expected.add(version.workerHeader());
            expected.add("02");
            expected.add(frames.get(i + 2));
            expected.add("");
            expected.addAll(List.of(body));
            org.junit.jupiter.api.Assertions.assertEquals(expected, frames, "REQUEST layout");
            return client;
        }

        boolean isCommand(ZmtpMessage m, MdpVersion.WorkerCommand c) {
            int i = version.leadingEmptyFrame() ? 1 : 0;
            return m.size() == i + 2 && MdpProtocol.code(m.frame(i + 1)) == version.code(c);
        }

        /** The frames of a command without arguments in this version (DISCONNECT...). */
        List<String> commandFrames(MdpVersion.WorkerCommand c) {
            List<String> l = new ArrayList<>();
            if (version.leadingEmptyFrame()) {
                l.add("");
            }
            l.add(version.workerHeader());
            l.add(String.format("%02x", version.code(c)));
            return l;
        }

        @Override
        public void close() {
            socket.close(Duration.ZERO);
        }
    }
}
