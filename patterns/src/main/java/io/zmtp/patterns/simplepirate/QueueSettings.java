package io.zmtp.patterns.simplepirate;

import io.zmtp.patterns.kit.ComponentSettings;
import io.zmtp.socket.SocketOptions;

import java.time.Duration;
import java.util.Objects;

/**
 * What every queue is built from: where its two ROUTERs bind (clients on the frontend, the guide's
 * tcp://*:5555; workers on the backend, tcp://*:5556), their options, linger and clock. Each
 * queue's {@code Settings} extends this with what is its own (a heartbeat, say).
 */
public abstract class QueueSettings extends ComponentSettings {
    final String frontend;
    final String backend;
    final SocketOptions frontendOptions;
    final SocketOptions backendOptions;
    final Duration linger;

    protected QueueSettings(Builder<?, ?> b) {
        super(b);
        frontend = b.frontend;
        backend = b.backend;
        linger = b.linger;
        frontendOptions = b.frontendOptions.toBuilder().linger(b.linger).build();
        backendOptions = b.backendOptions.toBuilder().linger(b.linger).build();
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

    /**
     * The builder every queue's settings builder extends.
     *
     * @param <B> the concrete builder
     * @param <S> the settings it builds
     */
    public abstract static class Builder<B extends Builder<B, S>, S extends QueueSettings>
            extends ComponentSettings.Builder<B, S> {
        private String frontend = "tcp://*:5555";
        private String backend = "tcp://*:5556";
        private SocketOptions frontendOptions = SocketOptions.builder().routerHandover(true).build();
        private SocketOptions backendOptions = SocketOptions.builder().routerHandover(true).build();
        private Duration linger = Duration.ofSeconds(1);

        protected Builder() {
        }


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


    }
}
