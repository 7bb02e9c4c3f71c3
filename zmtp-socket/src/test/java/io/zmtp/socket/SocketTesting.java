package io.zmtp.socket;

import io.netty.util.concurrent.Future;
import io.zmtp.wire.ZmtpMessage;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Helpers for socket tests: conditions with deadlines, and inboxes for reactor sockets. */
final class SocketTesting {
    static final Duration T = Duration.ofSeconds(10);

    private SocketTesting() {
    }

    /** Waits until {@code condition} holds, failing after the deadline. */
    static void eventually(String what, BooleanSupplier condition) {
        eventually(() -> what, condition);
    }

    static void eventually(java.util.function.Supplier<String> what, BooleanSupplier condition) {
        io.zmtp.testing.Await.until(T, what, condition);
    }


    /** Runs {@code c} on the socket's loop and returns its result. */
    static <T> T onLoop(ZmtpSocket s, Callable<T> c) {
        return BlockingSocket.await(s.eventLoop().submit(c), T);
    }

    static int peers(ZmtpSocket s) {
        return onLoop(s, s::peerCount);
    }

    static void awaitPeers(ZmtpSocket s, int n) {
        eventually(s + " has " + n + " peers", () -> peers(s) >= n);
    }

    static <V> V get(Future<V> f) {
        return BlockingSocket.await(f, T);
    }

    static List<String> strings(ZmtpMessage m) {
        try {
            List<String> l = new ArrayList<>();
            for (int i = 0; i < m.size(); i++) {
                l.add(m.frameString(i));
            }
            return l;
        } finally {
            m.release();
        }
    }

    /** Collects a reactor socket's messages as lists of strings. */
    static final class Inbox {
        final BlockingQueue<List<String>> queue = new LinkedBlockingQueue<>();

        Inbox(ZmtpSocket s) {
            s.onMessage(m -> queue.add(strings(m)));
        }

        List<String> next() {
            try {
                List<String> m = queue.poll(T.toMillis(), TimeUnit.MILLISECONDS);
                if (m == null) {
                    throw new AssertionError("no message within " + T);
                }
                return m;
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }

        List<String> poll(long ms) {
            try {
                return queue.poll(ms, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }

    /** Records a socket's monitor events. */
    static final class Events {
        final List<SocketEvent> seen = new CopyOnWriteArrayList<>();

        Events(ZmtpSocket s) {
            s.monitor(seen::add);
        }

        boolean has(SocketEvent.Type t) {
            for (SocketEvent e : seen) {
                if (e.type() == t) {
                    return true;
                }
            }
            return false;
        }

        long count(SocketEvent.Type t) {
            return seen.stream().filter(e -> e.type() == t).count();
        }

        SocketEvent first(SocketEvent.Type t) {
            for (SocketEvent e : seen) {
                if (e.type() == t) {
                    return e;
                }
            }
            return null;
        }

        void await(SocketEvent.Type t) {
            eventually(() -> "event " + t + " (seen " + seen + ")", () -> has(t));
        }
    }
}
