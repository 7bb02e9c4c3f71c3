package io.zmtp.patterns;

import io.zmtp.wire.ZmtpMessage;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

/** Helpers for the pattern tests: conditions with deadlines and event recorders. */
public final class PatternTesting {
    /** The deadline of every wait. */
    public static final Duration T = Duration.ofSeconds(10);

    private PatternTesting() {
    }

    public static void eventually(String what, BooleanSupplier condition) {
        eventually(() -> what, condition);
    }

    public static void eventually(Supplier<String> what, BooleanSupplier condition) {
        io.zmtp.testing.Await.until(T, what, condition);
    }

    /** The future's value, failing the test after the deadline. */
    public static <V> V get(CompletableFuture<V> f) {
        try {
            return f.get(T.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException | TimeoutException e) {
            throw new AssertionError("no result within " + T, e);
        } catch (ExecutionException e) {
            throw new AssertionError("failed: " + e.getCause(), e.getCause());
        }
    }

    /** The frames as strings; the message is released. */
    public static List<String> strings(ZmtpMessage m) {
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

    /** The tcp port of an endpoint such as tcp://127.0.0.1:40123. */
    public static int port(String endpoint) {
        return Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
    }

    /** Records a component's events (a listener) and waits for them. */
    public static final class Recorder<E> implements Consumer<E> {
        private final List<E> events = new CopyOnWriteArrayList<>();

        @Override
        public void accept(E e) {
            events.add(e);
        }

        public List<E> all() {
            return new ArrayList<>(events);
        }

        public long count(Predicate<? super E> p) {
            return events.stream().filter(p).count();
        }

        /** The first event matching {@code p}, waiting for it up to the deadline. */
        public E await(String what, Predicate<? super E> p) {
            return awaitCount(what, p, 1).get(0);
        }

        /** Waits until {@code n} events match {@code p}; returns them. */
        public List<E> awaitCount(String what, Predicate<? super E> p, int n) {
            eventually(() -> what + " (seen: " + events + ")", () -> count(p) >= n);
            List<E> l = new ArrayList<>();
            for (E e : events) {
                if (p.test(e)) {
                    l.add(e);
                }
            }
            return l;
        }
    }
}
