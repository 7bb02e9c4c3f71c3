package io.zmtp.patterns.majordomo;

import io.zmtp.patterns.binarystar.BinaryStarEvent;
import io.zmtp.patterns.binarystar.BinaryStarSettings;
import io.zmtp.patterns.binarystar.BinaryStarState;
import io.zmtp.patterns.binarystar.BinaryStarStateExchange;
import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.LoopComponent;
import io.zmtp.patterns.kit.PatternClock;
import io.zmtp.socket.ZmtpContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * A highly available Majordomo broker: a {@link MajordomoBroker} run as one server of a Binary
 * Star pair (the guide's chapter 4 puts the two patterns side by side; this joins them). Two of
 * them, a primary and a backup, exchange their states with the {@link BinaryStarStateExchange}
 * that {@code BinaryStarServer} uses, so the same FSM and the same rules decide which one serves.
 *
 * <h2>Clients</h2>
 * Every client request (MMI included) is a vote, as in the guide: the broker serves it when the
 * FSM says so (primary before it has heard the backup, or active); a passive broker whose peer has
 * been silent for the peer expiry (two state heartbeats) becomes active and serves it; otherwise
 * (backup that has not heard the primary, passive with a live peer) the request is dropped
 * unanswered and the client, given both endpoints, times out and tries the other one after its
 * settle delay ({@link MajordomoClientSettings#failoverSettle()}).
 *
 * <h2>Workers</h2>
 * Worker commands never vote: READY and HEARTBEAT cannot make a broker active (a worker that
 * lost the active broker is no sign that clients did). A broker registers workers in every state;
 * at a passive broker they are <em>standby</em> registrations: they heartbeat as usual, and when
 * the broker becomes active by a client's vote they are already there to serve. A passive broker
 * whose peer is alive has no use for workers, so each time it receives the peer's state it sends
 * DISCONNECT to every idle worker that registered at least one peer expiry before (a worker
 * serving a request finishes first); the worker then moves on to its next endpoint, the active
 * broker. The expiry's grace is what makes failover fast: a worker that lost the active broker
 * comes to the backup at once, while the backup still believes in its peer, and is kept because
 * no state comes after the peer died. Every broker that becomes passive (the restarted primary
 * that finds the backup active) thus hands its workers over within a peer expiry.
 *
 * <h2>What a failover loses</h2>
 * Requests queued or being served at the broker that died are lost with it; no client saw them
 * answered, and each client resends what it has outstanding to the other broker (a worker may
 * then run a request twice: MDP workers are meant to be idempotent). A reply the dead broker had
 * not yet passed on is lost the same way and the request is resent. Nothing a client has seen
 * answered is redone or dropped, and each request is answered at most once: a client drops
 * anything that comes on the socket of an earlier try.
 *
 * <h2>Lifecycle</h2>
 * A {@link LoopComponent} on the broker's event loop: {@link #start()} binds the state publisher
 * and the broker's endpoints, then connects to the peer's state publisher and starts the state
 * heartbeat; {@link #closeAsync()} closes both (the broker sends its workers DISCONNECT, so they
 * move to the peer at once). A fatal pair (both active, both passive, both primary or both
 * backup) is reported as {@link BinaryStarEvent.Fatal} and closes the broker, as the guide's
 * servers exit.
 */
public final class HighAvailabilityBroker extends LoopComponent {
    private static final Logger log = LoggerFactory.getLogger(HighAvailabilityBroker.class);

    private final Settings settings;
    private final MajordomoBroker broker;
    private final BinaryStarStateExchange pair;
    private final EventReporter<BinaryStarEvent> events;

    public HighAvailabilityBroker(ZmtpContext ctx, Settings settings) {
        this(ctx, settings, new MajordomoBroker(ctx, settings.broker()));
    }

    private HighAvailabilityBroker(ZmtpContext ctx, Settings settings, MajordomoBroker broker) {
        super(broker.eventLoop(), settings.clock());
        this.settings = settings;
        this.broker = broker;
        this.events = new EventReporter<>(settings.pairListener, log, "HA Majordomo broker");
        this.pair = new BinaryStarStateExchange(ctx, eventLoop(), clock(), settings.isPrimary(),
                settings.statePublisher(), settings.statePeer(), settings.stateHeartbeat(),
                settings.broker().socketOptions(), events)
                .onPeerState(this::peerState)
                .onFatal(this::closeAsync);
        broker.clientGate(() -> !isClosing() && pair.clientRequest().accepted());
    }

    /** A passive broker with a live peer sends its standby workers on once they had a peer expiry's grace. */
    private void peerState(BinaryStarState peer) {
        if (pair.state() != BinaryStarState.PASSIVE || isClosing()) {
            return;
        }
        long by = clock().nanoTime() - pair.peerExpiry().toNanos();
        int n = broker.sendAwayWorkers(by, "passive broker: the " + peer.name().toLowerCase(java.util.Locale.ROOT)
                + " peer is alive, serve it");
        if (n > 0) {
            log.info("passive broker sent {} standby worker(s) to its peer", n);
        }
    }

    @Override
    protected CompletionStage<Void> onStart() {
        return pair.bind()
                .thenCompose(s -> broker.start())
                .thenCompose(v -> pair.connectAndStart())
                .thenRun(() -> inLoop(() -> {
                    if (!isClosing()) {
                        events.report(() -> new BinaryStarEvent.Listening(pair.state(), broker.endpoint(),
                                pair.stateEndpoint(), settings.statePeer()));
                    }
                }));
    }

    @Override
    protected CompletionStage<Void> onClose() {
        return pair.close().thenCombine(broker.closeAsync(), (a, b) -> b);
    }

    /** The current Binary Star state (any thread). */
    public BinaryStarState state() {
        return pair.state();
    }

    /** The Majordomo broker inside (for its counts and endpoints). */
    public MajordomoBroker broker() {
        return broker;
    }

    /** The first endpoint the broker bound (where clients and workers connect); null before start. */
    public String endpoint() {
        return broker.endpoint();
    }

    /** The broker's endpoints bound; empty before start. */
    public List<String> endpoints() {
        return broker.endpoints();
    }

    /** The state publisher's endpoint bound (port 0 resolved); null before start. */
    public String stateEndpoint() {
        return pair.stateEndpoint();
    }

    public Settings settings() {
        return settings;
    }

    /**
     * The settings of one broker of the pair: the pair's ({@link BinaryStarSettings}), the Majordomo
     * broker's, and who hears the pair's events. {@link #primary()} and {@link #backup()} give the
     * defaults: the primary serves MDP on {@code tcp://*:5555} (Majordomo's usual port), publishes
     * its state on {@code tcp://*:5003} and takes its peer's from {@code tcp://localhost:5004}; the
     * backup serves on {@code tcp://*:5556} with its state on 5004 and its peer's on 5003 (the
     * guide's Binary Star state ports). The state heartbeat is the guide's 1 s, the peer gone after
     * two.
     *
     * <p>One clock: the state exchange and the broker run on one event loop, so they read one clock,
     * set either here ({@code clock}) or in the broker's settings (not both, unless the same).
     * {@code traceMessages} has no effect: the broker traces through its settings' tracer.
     */
    public static final class Settings extends BinaryStarSettings {
        /** The primary's MDP endpoint by default. */
        public static final String PRIMARY_ENDPOINT = "tcp://*:5555";
        /** The backup's MDP endpoint by default. */
        public static final String BACKUP_ENDPOINT = "tcp://*:5556";

        final MajordomoBrokerSettings broker;
        final Consumer<? super BinaryStarEvent> pairListener;

        private Settings(Builder b) {
            super(b);
            MajordomoBrokerSettings s = b.broker != null ? b.broker
                    : MajordomoBrokerSettings.builder().endpoints(isPrimary() ? PRIMARY_ENDPOINT : BACKUP_ENDPOINT).build();
            broker = withClock(s, super.clock());
            pairListener = b.pairListener;
        }

        /** The broker's settings on the one clock of the pair's loop. */
        private static MajordomoBrokerSettings withClock(MajordomoBrokerSettings broker, PatternClock clock) {
            if (clock == PatternClock.system() || clock == broker.clock()) {
                return broker;
            }
            if (broker.clock() != PatternClock.system()) {
                throw new IllegalArgumentException("a highly available broker and its state exchange share one loop,"
                        + " so one clock: set it here or in the broker's settings, not both");
            }
            return broker.toBuilder().clock(clock).build();
        }

        /** The primary: MDP on tcp://*:5555, state on tcp://*:5003, peer's state at tcp://localhost:5004. */
        public static Builder primary() {
            return new Builder(true);
        }

        /** The backup: MDP on tcp://*:5556, state on tcp://*:5004, peer's state at tcp://localhost:5003. */
        public static Builder backup() {
            return new Builder(false);
        }

        /** The clock of the pair's loop: the broker's and the state exchange's. */
        @Override
        public PatternClock clock() {
            return broker.clock();
        }

        /** The Majordomo broker's settings (its endpoints are where clients and workers connect). */
        public MajordomoBrokerSettings broker() {
            return broker;
        }

        public static final class Builder extends BinaryStarSettings.Builder<Builder, Settings> {
            private MajordomoBrokerSettings broker;
            private Consumer<? super BinaryStarEvent> pairListener;

            private Builder(boolean primary) {
                super(primary);
            }

            @Override
            protected Builder self() {
                return this;
            }

            /**
             * The Majordomo broker's settings: endpoints, heartbeats, limits, clock, listener (default:
             * {@link MajordomoBrokerSettings#DEFAULTS} bound on {@link #PRIMARY_ENDPOINT} or
             * {@link #BACKUP_ENDPOINT}). Its socket options apply to the state sockets too.
             */
            public Builder broker(MajordomoBrokerSettings settings) {
                this.broker = Objects.requireNonNull(settings);
                return this;
            }

            /** Who hears the pair's events (state changes, refused requests, peer lost...). */
            public Builder pairListener(Consumer<? super BinaryStarEvent> listener) {
                this.pairListener = listener;
                return this;
            }

            @Override
            public Settings build() {
                return new Settings(this);
            }
        }
    }
}
