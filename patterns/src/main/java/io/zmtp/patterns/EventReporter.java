package io.zmtp.patterns;

import org.slf4j.Logger;

import java.util.function.Consumer;
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

    /**
     * @param listener the application's listener, or null
     * @param log the component's logger (events are logged at debug)
     * @param component a name for warnings, e.g. "Paranoid Pirate queue"
     */
    public EventReporter(Consumer<? super E> listener, Logger log, String component) {
        this.listener = listener;
        this.log = log;
        this.component = component;
    }

    /** Reports an event, building it only if a listener or the debug log will see it. */
    public void report(Supplier<? extends E> event) {
        boolean debug = log.isDebugEnabled();
        if (listener == null && !debug) {
            return;
        }
        E e = event.get();
        if (debug) {
            log.debug("{}", e);
        }
        if (listener == null) {
            return;
        }
        try {
            listener.accept(e);
        } catch (RuntimeException ex) {
            log.warn("{} listener failed on {}", component, e, ex);
        }
    }

    /** Whether anyone will see events (to skip work done only to describe them). */
    public boolean isActive() {
        return listener != null || log.isDebugEnabled();
    }
}
