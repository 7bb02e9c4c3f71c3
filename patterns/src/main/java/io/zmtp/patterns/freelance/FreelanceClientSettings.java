package io.zmtp.patterns.freelance;

import io.zmtp.patterns.kit.ComponentSettings;
import io.zmtp.socket.SocketOptions;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What the three Freelance clients' settings share: the servers and the options of the client's
 * sockets (linger is always 0), on top of the clock every component's settings have.
 */
public abstract class FreelanceClientSettings extends ComponentSettings {
    final List<String> endpoints;
    final SocketOptions socketOptions;

    protected FreelanceClientSettings(Builder<?, ?> b) {
        super(b);
        endpoints = List.copyOf(b.endpoints);
        socketOptions = b.socketOptions;
    }

    /** The servers, in the order given. */
    public List<String> endpoints() {
        return endpoints;
    }

    /** Options of the client's sockets (security, reconnect); linger is always 0. */
    public SocketOptions socketOptions() {
        return socketOptions;
    }

    /**
     * The builder of a Freelance client's settings.
     *
     * @param <B> the concrete builder
     * @param <S> the settings it builds
     */
    public abstract static class Builder<B extends Builder<B, S>, S extends FreelanceClientSettings>
            extends ComponentSettings.Builder<B, S> {
        private final List<String> endpoints = new ArrayList<>();
        private SocketOptions socketOptions = ComponentSettings.SOCKET_OPTIONS;

        /** Adds servers (model 1 tries them in this order). */
        public B endpoints(List<String> endpoints) {
            for (String e : endpoints) {
                endpoint(e);
            }
            return self();
        }

        public B endpoint(String endpoint) {
            this.endpoints.add(Objects.requireNonNull(endpoint));
            return self();
        }

        /** Options of the client's sockets (security, reconnect); linger is always 0. */
        public B socketOptions(SocketOptions options) {
            this.socketOptions = Objects.requireNonNull(options);
            return self();
        }

        /** Fails unless at least one server was given. */
        protected final void requireEndpoints() {
            if (endpoints.isEmpty()) {
                throw new IllegalArgumentException("at least one server endpoint is needed");
            }
        }

        /** {@code d}, if it is positive. */
        protected static Duration positive(Duration d, String name) {
            if (d.isZero() || d.isNegative()) {
                throw new IllegalArgumentException(name + " must be positive");
            }
            return d;
        }

        /** {@code n}, if it is at least {@code min}. */
        protected static int atLeast(int n, int min, String name) {
            if (n < min) {
                throw new IllegalArgumentException(name + " must be at least " + min);
            }
            return n;
        }
    }
}
