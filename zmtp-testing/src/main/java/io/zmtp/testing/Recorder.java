package io.zmtp.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Predicate;

/** Records a component's events (a listener, any thread) and waits for them on the test thread. */
public final class Recorder<E> implements Consumer<E> {
    private final List<E> events = new CopyOnWriteArrayList<>();
    private final Duration deadline;

    /** A recorder whose waits fail after {@link Await#DEADLINE}. */
    public Recorder() {
        this(Await.DEADLINE);
    }

    public Recorder(Duration deadline) {
        this.deadline = deadline;
    }

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
        Await.until(deadline, () -> what + " (seen: " + events + ")", () -> count(p) >= n);
        List<E> l = new ArrayList<>();
        for (E e : events) {
            if (p.test(e)) {
                l.add(e);
            }
        }
        return l;
    }
}
