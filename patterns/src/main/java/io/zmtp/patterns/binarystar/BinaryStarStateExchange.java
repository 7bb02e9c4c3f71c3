package io.zmtp.patterns.binarystar;

import io.netty.channel.EventLoop;
import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.kit.Heartbeat;
import io.zmtp.patterns.kit.LoopClock;
import io.zmtp.patterns.kit.PeerLiveness;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.FrameText;
import io.zmtp.wire.PeerFailureLog;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The part of a Binary Star server that does not depend on what it serves: the pair's state
 * exchange and the {@link BinaryStarFsm}, on the owner's event loop. {@link BinaryStarServer}
 * (any frontend handler) and the highly available Majordomo broker
 * ({@code io.zmtp.patterns.majordomo.HighAvailabilityBroker}) both run one, so the two apply
 * exactly the same rules.
 *
 * <p>A PUB socket bound on the state publisher endpoint publishes this server's state every
 * heartbeat (one frame, ASCII decimal, as the guide's servers do); a SUB socket connected to the
 * peer's publisher takes the peer's state into the FSM, and each state received keeps the peer
 * alive for the heartbeat's expiry (two heartbeats): in the FSM, whose vote needs it at any time,
 * and in the kit's {@link PeerLiveness}, whose beat publishes the state and reports a peer lost
 * (not on a beat that ran late). The owner asks {@link #clientRequest()}
 * before it serves a client request: the answer is the guide's vote (a passive server whose peer
 * is gone becomes active and serves; otherwise a passive or backup server refuses). Transitions
 * are reported ({@link BinaryStarEvent}) and followed by the owner's callbacks; a fatal pair is
 * reported and handed to the owner's {@code onFatal} (which closes the server).
 *
 * <p>Everything runs on the given loop; {@link #clientRequest()}, {@link #state()} and
 * {@link #peerAlive()} are called there.
 */
public final class BinaryStarStateExchange {
    private static final Logger log = LoggerFactory.getLogger(BinaryStarStateExchange.class);
    private static final PeerFailureLog peerLog = PeerFailureLog.get(BinaryStarStateExchange.class);

    private final EventLoop loop;
    private final String statePublisher;
    private final String statePeer;
    private final Heartbeat heartbeat;
    private final EventReporter<BinaryStarEvent> events;
    private final ZmtpSocket statePub;
    private final ZmtpSocket stateSub;
    private final BinaryStarFsm fsm;
    /** The beat, and the peer's liveness as reported ({@link BinaryStarEvent.PeerHeard}, {@link BinaryStarEvent.PeerLost}). */
    private final PeerLiveness<String> liveness;
    private Runnable onActive = () -> { };
    private Runnable onPassive = () -> { };
    private Consumer<BinaryStarState> onPeerState = s -> { };
    private Runnable onFatal = () -> { };
    private volatile BinaryStarState state;
    private volatile String boundPublisher;
    private boolean closed;

    /**
     * @param context where the two state sockets are made
     * @param loop the owner's event loop (the state sockets and the heartbeat run there)
     * @param clock the owner's clock, on that loop
     * @param primary whether this server is the primary (else the backup)
     * @param statePublisher where this server publishes its state (bound)
     * @param statePeer the peer's state publisher (connected)
     * @param heartbeat how often the state is published, and after how many silent heartbeats the
     *        peer counts as gone (the guide's 1 s, 2)
     * @param socketOptions options of the state sockets (security); they get linger 0
     * @param events where the pair's events go
     */
    public BinaryStarStateExchange(ZmtpContext context, EventLoop loop, LoopClock clock, boolean primary,
            String statePublisher, String statePeer, Heartbeat heartbeat, SocketOptions socketOptions,
            EventReporter<BinaryStarEvent> events) {
        this.loop = Objects.requireNonNull(loop);
        this.statePublisher = Objects.requireNonNull(statePublisher);
        this.statePeer = Objects.requireNonNull(statePeer);
        this.heartbeat = Objects.requireNonNull(heartbeat);
        this.events = Objects.requireNonNull(events);
        SocketOptions stateOptions = socketOptions.toBuilder().linger(Duration.ZERO).build();
        this.statePub = context.socket(SocketType.PUB, stateOptions, loop);
        this.stateSub = context.socket(SocketType.SUB, stateOptions, loop);
        this.fsm = new BinaryStarFsm(primary, heartbeat.expiry(), clock::nanoTime);
        this.state = fsm.state();
        this.liveness = new PeerLiveness<>(clock, heartbeat, new PeerLiveness.Owner<>() {
            @Override
            public void beat(boolean counted) {
                publish();
            }

            @Override
            public void expired(String peer) {
                events.report(() -> new BinaryStarEvent.PeerLost(fsm.state(), heartbeat.expiry()));
            }
        });
    }

    /** Runs {@code callback} on the loop each time this server becomes active (set before start). */
    public BinaryStarStateExchange onActive(Runnable callback) {
        this.onActive = Objects.requireNonNull(callback);
        return this;
    }

    /** Runs {@code callback} on the loop each time this server becomes passive (set before start). */
    public BinaryStarStateExchange onPassive(Runnable callback) {
        this.onPassive = Objects.requireNonNull(callback);
        return this;
    }

    /** Runs {@code callback} on the loop with each valid state the peer publishes, after the FSM took it. */
    public BinaryStarStateExchange onPeerState(Consumer<BinaryStarState> callback) {
        this.onPeerState = Objects.requireNonNull(callback);
        return this;
    }

    /** Runs {@code callback} on the loop when the pair is fatal (after the {@link BinaryStarEvent.Fatal} event). */
    public BinaryStarStateExchange onFatal(Runnable callback) {
        this.onFatal = Objects.requireNonNull(callback);
        return this;
    }

    /** The current state (any thread). */
    public BinaryStarState state() {
        return state;
    }

    /** Whether the peer has been heard from within the expiry (on the loop). */
    public boolean peerAlive() {
        return fsm.peerAlive();
    }

    /** How long the peer may be silent before it counts as gone. */
    public Duration peerExpiry() {
        return heartbeat.expiry();
    }

    public String statePeer() {
        return statePeer;
    }

    /** The state publisher's endpoint bound (port 0 resolved); null before {@link #bind()} completes. */
    public String stateEndpoint() {
        return boundPublisher;
    }

    /** Binds the state publisher (on the loop); completes with the endpoint bound. */
    public CompletableFuture<String> bind() {
        stateSub.onMessage(this::onPeerState);
        stateSub.subscribe("");
        return Futures.of(statePub.bind(statePublisher)).thenApply(e -> {
            boundPublisher = e;
            return e;
        });
    }

    /** Connects to the peer's publisher and starts publishing every heartbeat (on the loop). */
    public CompletableFuture<Void> connectAndStart() {
        return Futures.of(stateSub.connect(statePeer)).thenRun(() -> inLoop(() -> {
            if (!closed) {
                fsm.start(); // the peer's silence counts from here
                liveness.start();
            }
        }));
    }

    /** Stops the heartbeat and closes the state sockets (on the loop). */
    public CompletableFuture<Void> close() {
        closed = true;
        liveness.stop();
        return Futures.of(stateSub.close(Duration.ZERO))
                .thenCombine(Futures.of(statePub.close(Duration.ZERO)), (a, b) -> b);
    }

    /**
     * A client request arrived (on the loop): the FSM's vote. A refused request is reported
     * ({@link BinaryStarEvent.RequestRefused}) and must be dropped by the caller; an accepted one
     * has had its transition applied (event, then callback) before this returns.
     */
    public BinaryStarFsm.Outcome clientRequest() {
        BinaryStarFsm.Outcome o = fsm.clientRequest();
        if (!o.accepted()) {
            events.report(() -> new BinaryStarEvent.RequestRefused(o.from(), o.reason()));
            return o;
        }
        if (o.changed()) {
            liveness.remove(statePeer); // taken for gone: heard again, it is reported again
        }
        applied(o);
        return o;
    }

    /** Each heartbeat: publish the state. */
    private void publish() {
        if (closed) {
            return;
        }
        statePub.send(ZmtpMessage.ofStrings(Integer.toString(fsm.state().code())));
    }

    private void onPeerState(ZmtpMessage msg) {
        if (closed) {
            msg.release();
            return;
        }
        BinaryStarState peer;
        try {
            peer = msg.size() == 1 ? BinaryStarState.parse(msg.frameBytes(0)) : null;
            if (peer == null) {
                String detail = msg.size() + " frame(s), first " + (msg.size() == 0 ? ""
                        : FrameText.escape(msg.frameString(0), 32));
                peerLog.warn("Binary Star: invalid state message from the peer at {} dropped: {}",
                        statePeer, detail);
                events.report(() -> new BinaryStarEvent.InvalidState(detail));
                return;
            }
        } finally {
            msg.release();
        }
        BinaryStarFsm.Outcome o = fsm.peerState(peer);
        if (o.fatal()) {
            events.report(() -> new BinaryStarEvent.Fatal(o.from(), peer, o.reason()));
            closed = true;
            liveness.stop();
            run(onFatal, "fatal");
            return;
        }
        if (liveness.heard(statePeer)) {
            events.report(() -> new BinaryStarEvent.PeerHeard(o.from(), peer));
        }
        applied(o);
        run(() -> onPeerState.accept(peer), "peer state");
    }

    /** A transition: the event, then the owner's callback. */
    private void applied(BinaryStarFsm.Outcome o) {
        if (!o.changed()) {
            return;
        }
        state = o.to();
        events.report(() -> new BinaryStarEvent.StateChanged(o.from(), o.to(), o.reason()));
        if (o.to() == BinaryStarState.ACTIVE) {
            run(onActive, "active");
        } else if (o.to() == BinaryStarState.PASSIVE) {
            run(onPassive, "passive");
        }
    }

    private static void run(Runnable callback, String what) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            log.warn("Binary Star {} callback failed", what, e);
        }
    }

    private void inLoop(Runnable r) {
        if (loop.inEventLoop()) {
            r.run();
        } else {
            loop.execute(r);
        }
    }
}
