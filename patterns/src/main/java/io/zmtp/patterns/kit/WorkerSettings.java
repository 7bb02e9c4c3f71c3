package io.zmtp.patterns.kit;

import io.zmtp.socket.SocketOptions;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * What every worker (and the Lazy Pirate server) is built from: where it connects or binds, its
 * user code, how slow and how faulty it pretends to be, its socket options, its clock. A worker
 * that needs nothing more (the Lazy Pirate server, the Simple Pirate worker) takes these settings
 * as they are, from {@link #builder(String)}; one with more of its own (a heartbeat, say) extends
 * them with its {@code Settings}.
 */
public class WorkerSettings extends ComponentSettings {
    final String endpoint;
    final RequestHandler handler;
    final String identity;
    final Duration workTime;
    final FailureSimulation simulation;
    final SocketOptions socketOptions;
    final int maxQueuedRequests;

    protected WorkerSettings(Builder<?, ?> b) {
        super(b);
        endpoint = b.endpoint;
        handler = b.handler;
        identity = b.identity;
        workTime = b.workTime;
        simulation = b.simulation;
        socketOptions = b.socketOptions;
        maxQueuedRequests = b.maxQueuedRequests;
    }

    /** A builder of worker settings whose endpoint is {@code defaultEndpoint} unless told otherwise. */
    public static PlainBuilder builder(String defaultEndpoint) {
        return new PlainBuilder(defaultEndpoint);
    }

    /** The guide's worker identity: two random 16-bit numbers in hex, "1A2B-3C4D". */
    public static String randomIdentity() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        return String.format("%04X-%04X", r.nextInt(0x10000), r.nextInt(0x10000));
    }

    public String endpoint() {
        return endpoint;
    }

    public RequestHandler handler() {
        return handler;
    }

    /** The fixed identity, or null for a random one per connection. */
    public String identity() {
        return identity;
    }

    public Duration workTime() {
        return workTime;
    }

    public FailureSimulation simulation() {
        return simulation;
    }

    public SocketOptions socketOptions() {
        return socketOptions;
    }

    public int maxQueuedRequests() {
        return maxQueuedRequests;
    }

    /**
     * The builder every worker's settings builder extends.
     *
     * @param <B> the concrete builder
     * @param <S> the settings it builds
     */
    public abstract static class Builder<B extends Builder<B, S>, S extends WorkerSettings>
            extends ComponentSettings.Builder<B, S> {
        private String endpoint;
        private RequestHandler handler = RequestHandler.echo();
        private String identity;
        private Duration workTime = Duration.ZERO;
        private FailureSimulation simulation = FailureSimulation.NONE;
        private SocketOptions socketOptions = ComponentSettings.SOCKET_OPTIONS;
        private int maxQueuedRequests = 100;

        protected Builder(String defaultEndpoint) {
            this.endpoint = defaultEndpoint;
        }


        /** Where the worker connects (a queue's backend), or where a server binds. */
        public B endpoint(String endpoint) {
            this.endpoint = Objects.requireNonNull(endpoint);
            return self();
        }

        /** The user code (echo by default). */
        public B handler(RequestHandler handler) {
            this.handler = Objects.requireNonNull(handler);
            return self();
        }

        /** A fixed identity (null, the default: a random "1A2B-3C4D", as the guide's). */
        public B identity(String identity) {
            this.identity = identity;
            return self();
        }

        /** A delay before each request goes to the handler (the guide's worker: 1 s; default 0). */
        public B workTime(Duration d) {
            if (d.isNegative()) {
                throw new IllegalArgumentException("workTime must not be negative");
            }
            this.workTime = d;
            return self();
        }

        /** Simulated crashes and overloads ({@link FailureSimulation#NONE} by default). */
        public B simulation(FailureSimulation s) {
            this.simulation = Objects.requireNonNull(s);
            return self();
        }

        /** Options of the worker's sockets (security, limits); identity and linger are the worker's. */
        public B socketOptions(SocketOptions options) {
            this.socketOptions = Objects.requireNonNull(options);
            return self();
        }

        /** Requests that may wait while one is handled (100 by default); more are dropped. */
        public B maxQueuedRequests(int n) {
            if (n < 0) {
                throw new IllegalArgumentException("maxQueuedRequests must not be negative");
            }
            this.maxQueuedRequests = n;
            return self();
        }


    }

    /** The builder of worker settings with nothing beyond what every worker has. */
    public static final class PlainBuilder extends Builder<PlainBuilder, WorkerSettings> {
        private PlainBuilder(String defaultEndpoint) {
            super(defaultEndpoint);
        }

        @Override
        protected PlainBuilder self() {
            return this;
        }

        @Override
        public WorkerSettings build() {
            return new WorkerSettings(this);
        }
    }
}
