package io.zmtp.patterns.majordomo;

import io.zmtp.patterns.kit.ComponentSettings;
import io.zmtp.patterns.kit.Heartbeat;
import io.zmtp.socket.SocketOptions;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * What the settings of every Majordomo component (broker, worker, clients) have beside the kit's
 * clock: the options of its socket, a tracer that sees every message (the guide's {@code -v}), and
 * the listener of its events. {@link MajordomoBrokerSettings}, {@link MajordomoWorkerSettings}
 * and {@link MajordomoClientSettings} extend it.
 *
 * <p>Majordomo components show each message through the {@link #tracer()}, in the guide's dump
 * format; they report no event per message, so the kit's {@code traceMessages} has no effect on
 * them.
 */
public abstract class MajordomoSettings extends ComponentSettings {
    /**
     * The guide's MDP heartbeat, the broker's and the worker's alike (HEARTBEAT_INTERVAL,
     * HEARTBEAT_LIVENESS): every 2500 ms, the peer lost after 3 silent intervals.
     */
    public static final Heartbeat DEFAULT_HEARTBEAT = Heartbeat.of(Duration.ofMillis(2500), 3);

    private final SocketOptions socketOptions;
    private final MessageTracer tracer;
    private final Consumer<MajordomoEvent> listener;

    protected MajordomoSettings(Builder<?, ?> b) {
        super(b);
        socketOptions = b.socketOptions;
        tracer = b.tracer;
        listener = b.listener;
    }

    /** The options of the component's socket. */
    public SocketOptions socketOptions() {
        return socketOptions;
    }

    /** The tracer of every message, or null. */
    public MessageTracer tracer() {
        return tracer;
    }

    /** The listener of the component's events, or null. */
    public Consumer<MajordomoEvent> listener() {
        return listener;
    }

    /**
     * The builder every Majordomo settings builder extends.
     *
     * @param <B> the concrete builder
     * @param <S> the settings it builds
     */
    public abstract static class Builder<B extends Builder<B, S>, S extends MajordomoSettings>
            extends ComponentSettings.Builder<B, S> {
        private SocketOptions socketOptions;
        private MessageTracer tracer;
        private Consumer<MajordomoEvent> listener;

        /** @param socketOptions the component's default socket options */
        protected Builder(SocketOptions socketOptions) {
            this.socketOptions = socketOptions;
        }

        /** Takes everything {@link MajordomoSettings} holds from {@code settings} (for {@code toBuilder()}). */
        protected B from(MajordomoSettings settings) {
            super.from(settings);
            socketOptions = settings.socketOptions;
            tracer = settings.tracer;
            listener = settings.listener;
            return self();
        }

        /** The options of the component's socket (security, limits, linger). */
        public B socketOptions(SocketOptions o) {
            this.socketOptions = Objects.requireNonNull(o);
            return self();
        }

        /** Sees every message sent and received (null, the default: none). */
        public B tracer(MessageTracer t) {
            this.tracer = t;
            return self();
        }

        /** Hears the component's events (null, the default: only the debug log does). */
        public B listener(Consumer<MajordomoEvent> l) {
            this.listener = l;
            return self();
        }
    }
}
