package io.zmtp.patterns.kit;

import org.slf4j.Logger;

import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * How a pattern component tells what it does: each event goes to the application's listener
 * (if any) and to the component's debug log, and is built only when one of them will see it.
 * A listener that throws is logged and does not disturb the component. Called on the
 * component's event loop.
 *
 * @param <E> the component's event type
 */
public final class EventReporter<E> {
    private final Consumer<? super E> listener;
    private final Logger log;
    private final String component;
    private final Predicate<Class<?>> wanted;

    /**
     * @param listener the application's listener, or null
     * @param log the component's logger (events are logged at debug)
     * @param component a name for warnings, e.g. "Paranoid Pirate queue"
     */
    public EventReporter(Consumer<? super E> listener, Logger log, String component) {
        this(listener, log, component, type -> true);
    }

    /**
     * A reporter whose listener sees only the event types {@code wanted} accepts (events reported
     * with their type, {@link #report(Class, Supplier)}); the others are built only for the debug
     * log. So a component that listens to a few kinds of events of another does not pay for
     * describing the rest.
     */
    public EventReporter(Consumer<? super E> listener, Logger log, String component, Predicate<Class<?>> wanted) {
        this.listener = listener;
        this.log = log;
        this.component = component;
        this.wanted = wanted;
    }

    /** Reports an event, building it only if a listener or the debug log will see it. */
    public void report(Supplier<? extends E> event) {
        emit(listener != null, event);
    }

    /**
     * Reports an event of {@code type}, building it only if the debug log or a listener that wants
     * that type will see it.
     */
    public <T extends E> void report(Class<T> type, Supplier<? extends T> event) {
        emit(listener != null && wanted.test(type), event);
    }

    private void emit(boolean listens, Supplier<? extends E> event) {
        boolean debug = log.isDebugEnabled();
        if (!listens && !debug) {
            return;
        }
        E e = event.get();
        if (debug) {
            log.debug("{}", e);
        }
        if (!listens) {
            return;
        }
        try {
            listener.accept(e);
        } catch (RuntimeException ex) {
            log.warn("{} listener failed on {}", component, e, ex);
        }
    }

    /**
     * Whether the application listens: a component that also logs what it reports (a failover, a
     * retry) logs it only when nobody listens, so a listener that prints events (the commands)
     * does not see each one twice.
     */
    public boolean hasListener() {
        return listener != null;
    }

    /** Whether anyone will see events (to skip work done only to describe them). */
    public boolean isActive() {
        return listener != null || log.isDebugEnabled();
    }

    /** Whether anyone will see events of {@code type}. */
    public boolean isActive(Class<? extends E> type) {
        return (listener != null && wanted.test(type)) || log.isDebugEnabled();
    }
}
