package io.zmtp.patterns;

import io.zmtp.patterns.time.PatternClock;
import io.zmtp.socket.SocketOptions;

import java.time.Duration;
import java.util.Objects;

/**
 * What every queue is built from: where its two ROUTERs bind (clients on the frontend, the guide's
 * tcp://*:5555; workers on the backend, tcp://*:5556), their options, linger and clock. Each
 * queue's {@code Settings} extends this with what is its own (a heartbeat, say).
 */
public abstract class QueueSettings {
    final String frontend;
    final String backend;
    final SocketOptions frontendOptions;
    final SocketOptions backendOptions;
    final Duration linger;
    final boolean traceMessages;
    final PatternClock clock;

    protected QueueSettings(Builder<?, ?> b) {
        frontend = b.frontend;
        backend = b.backend;
        linger = b.linger;
        frontendOptions = b.frontendOptions.toBuilder().linger(b.linger).build();
        backendOptions = b.backendOptions.toBuilder().linger(b.linger).build();
        traceMessages = b.traceMessages;
        clock = b.clock;
    }

    public String frontend() {
        return frontend;
    }

    public String backend() {
        return backend;
    }

    public Duration linger() {
        return linger;
    }

    public boolean traceMessages() {
        return traceMessages;
    }

    public PatternClock clock() {
        return clock;
    }

    /**
     * The builder every queue's settings builder extends.
     *
     * @param <B> the concrete builder
     * @param <S> the settings it builds
     */
    public abstract static class Builder<B extends Builder<B, S>, S extends QueueSettings> {
        private String frontend = "tcp://*:5555";
        private String backend = "tcp://*:5556";
        private SocketOptions frontendOptions = SocketOptions.builder().routerHandover(true).build();
        private SocketOptions backendOptions = SocketOptions.builder().routerHandover(true).build();
        private Duration linger = Duration.ofSeconds(1);
        private boolean traceMessages;
        private PatternClock clock = PatternClock.system();

        protected Builder() {
        }

        protected abstract B self();

        public abstract S build();

        /** Where clients connect. */
        public B frontend(String endpoint) {
            this.frontend = Objects.requireNonNull(endpoint);
            return self();
        }

        /** Where workers connect. */
        public B backend(String endpoint) {
            this.backend = Objects.requireNonNull(endpoint);
            return self();
        }

        /**
         * Options of the frontend ROUTER. The default hands a client's identity over to its
         * newest connection: a Lazy Pirate client with a fixed identity reopens its socket on
         * every retry, and the new socket must be heard at once.
         */
        public B frontendOptions(SocketOptions options) {
            this.frontendOptions = Objects.requireNonNull(options);
            return self();
        }

        /**
         * Options of the backend ROUTER. The default hands a worker's identity over to its
         * newest connection (a restarted worker with a fixed identity is heard at once).
         */
        public B backendOptions(SocketOptions options) {
            this.backendOptions = Objects.requireNonNull(options);
            return self();
        }

        /** How long close keeps flushing (1 s by default). */
        public B linger(Duration d) {
            if (d.isNegative()) {
                throw new IllegalArgumentException("linger must not be negative");
            }
            this.linger = d;
            return self();
        }

        /**
         * Also report an event for every message passed on (off by default: each costs a
         * description of the message). The commands turn it on with --verbose.
         */
        public B traceMessages(boolean on) {
            this.traceMessages = on;
            return self();
        }

        /** Where heartbeats and expiry read the time ({@link PatternClock#system()} by default). */
        public B clock(PatternClock clock) {
            this.clock = Objects.requireNonNull(clock);
            return self();
        }
    }
}
