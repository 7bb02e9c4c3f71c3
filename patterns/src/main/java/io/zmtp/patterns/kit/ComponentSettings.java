package io.zmtp.patterns.kit;


import java.time.Duration;
import java.util.Objects;

/**
 * What the settings of every pattern component have: the clock its timers read, and whether it
 * reports an event per message passed on. Every component's settings extend it ({@link WorkerSettings}
 * for the workers, {@link io.zmtp.patterns.simplepirate.QueueSettings} for the pirates' queues).
 */
public abstract class ComponentSettings {
    /**
     * The socket options of a pattern component's sockets unless its settings give others: the
     * library's, but with reconnect attempts at most 200 ms apart (libzmq retries every 100 ms).
     * The library's own doubling, up to 5 s, would let a worker or client find a peer that came
     * back after a long outage seconds late; so a component is back in service within a few
     * hundred milliseconds of its peer accepting again. The guide's longer delays stay where the
     * guide has them: for a peer that accepts but does not answer.
     */
    public static final io.zmtp.socket.SocketOptions SOCKET_OPTIONS = io.zmtp.socket.SocketOptions.builder()
            .reconnectIntervalMax(Duration.ofMillis(200)).build();

    final boolean traceMessages;
    final PatternClock clock;

    protected ComponentSettings(Builder<?, ?> b) {
        traceMessages = b.traceMessages;
        clock = b.clock;
    }

    public boolean traceMessages() {
        return traceMessages;
    }

    public PatternClock clock() {
        return clock;
    }

    /**
     * The builder every component's settings builder extends.
     *
     * @param <B> the concrete builder
     * @param <S> the settings it builds
     */
    public abstract static class Builder<B extends Builder<B, S>, S extends ComponentSettings> {
        private boolean traceMessages;
        private PatternClock clock = PatternClock.system();

        protected abstract B self();

        /** Takes the clock and the tracing of {@code settings} (for a settings class's {@code toBuilder()}). */
        protected B from(ComponentSettings settings) {
            this.traceMessages = settings.traceMessages;
            this.clock = settings.clock;
            return self();
        }

        public abstract S build();

        /**
         * Also report an event for every message passed on (off by default: each costs a
         * description of the message). The commands turn it on with --verbose.
         */
        public B traceMessages(boolean on) {
            this.traceMessages = on;
            return self();
        }

        /**
         * Where heartbeats, delays and timeouts read the time ({@link PatternClock#system()} by
         * default; a {@link io.zmtp.patterns.kit.ManualClock} in tests).
         */
        public B clock(PatternClock clock) {
            this.clock = Objects.requireNonNull(clock);
            return self();
        }

        /** {@code d}, if it is positive; else an IllegalArgumentException naming the setting. */
        protected static Duration positive(Duration d, String name) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive");
            }
            return d;
        }

        /** {@code d}, if it is not negative; else an IllegalArgumentException naming the setting. */
        protected static Duration notNegative(Duration d, String name) {
            if (d.isNegative()) {
                throw new IllegalArgumentException(name + " must not be negative");
            }
            return d;
        }

        /** {@code n}, if it is at least {@code min}; else an IllegalArgumentException naming the setting. */
        protected static int atLeast(int min, int n, String name) {
            if (n < min) {
                throw new IllegalArgumentException(name + " must be at least " + min);
            }
            return n;
        }

        /** {@code n}, if it is at least {@code min}; else an IllegalArgumentException naming the setting. */
        protected static long atLeast(long min, long n, String name) {
            if (n < min) {
                throw new IllegalArgumentException(name + " must be at least " + min);
            }
            return n;
        }
    }
}
