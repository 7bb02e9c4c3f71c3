package io.zmtp.patterns.binarystar;

import io.zmtp.patterns.kit.ComponentSettings;
import io.zmtp.patterns.kit.Heartbeat;

import java.time.Duration;
import java.util.Objects;

/**
 * What a server of a Binary Star pair is built from, whatever it serves: whether it is the primary
 * or the backup, where it publishes its state, where its peer publishes, and the state heartbeat
 * (the guide's defaults: state on {@code tcp://*:5003} for the primary and {@code tcp://*:5004} for
 * the backup, each taking its peer's from the other port on localhost; every second, the peer
 * gone after two). {@link BinaryStarServer.Settings} and the highly available Majordomo broker's
 * settings extend it with what they serve.
 */
public abstract class BinaryStarSettings extends ComponentSettings {
    /** The guide's state heartbeat: every second, the peer gone after two without its state. */
    public static final Heartbeat DEFAULT_STATE_HEARTBEAT = Heartbeat.of(Duration.ofSeconds(1), 2);

    private final boolean primary;
    private final String statePublisher;
    private final String statePeer;
    private final Heartbeat stateHeartbeat;

    protected BinaryStarSettings(Builder<?, ?> b) {
        super(b);
        primary = b.primary;
        statePublisher = b.statePublisher;
        statePeer = b.statePeer;
        stateHeartbeat = b.stateHeartbeat;
    }

    public boolean isPrimary() {
        return primary;
    }

    /** Where this server publishes its state (bound). */
    public String statePublisher() {
        return statePublisher;
    }

    /** The peer's state publisher (connected). */
    public String statePeer() {
        return statePeer;
    }

    /** How often the state is published, and after how many silent ones the peer counts as gone. */
    public Heartbeat stateHeartbeat() {
        return stateHeartbeat;
    }

    /**
     * The builder both servers' settings builders extend.
     *
     * @param <B> the concrete builder
     * @param <S> the settings it builds
     */
    public abstract static class Builder<B extends Builder<B, S>, S extends BinaryStarSettings>
            extends ComponentSettings.Builder<B, S> {
        private final boolean primary;
        private String statePublisher;
        private String statePeer;
        private Heartbeat stateHeartbeat = DEFAULT_STATE_HEARTBEAT;

        /** A primary's or a backup's builder, with the guide's state endpoints. */
        protected Builder(boolean primary) {
            this.primary = primary;
            this.statePublisher = primary ? "tcp://*:5003" : "tcp://*:5004";
            this.statePeer = primary ? "tcp://localhost:5004" : "tcp://localhost:5003";
        }

        /** Where this server publishes its state (bound; the peer's SUB connects here). */
        public B statePublisher(String endpoint) {
            this.statePublisher = Objects.requireNonNull(endpoint);
            return self();
        }

        /** The peer's state publisher (connected). */
        public B statePeer(String endpoint) {
            this.statePeer = Objects.requireNonNull(endpoint);
            return self();
        }

        /**
         * How often the state is published (1 s, the guide's HEARTBEAT); the peer counts as gone
         * after two of them without its state.
         */
        public B stateHeartbeat(Duration interval) {
            this.stateHeartbeat = Heartbeat.of(interval, 2);
            return self();
        }

        /** The state heartbeat and after how many silent ones the peer counts as gone (1 s, 2). */
        public B stateHeartbeat(Heartbeat heartbeat) {
            this.stateHeartbeat = Objects.requireNonNull(heartbeat);
            return self();
        }
    }
}
