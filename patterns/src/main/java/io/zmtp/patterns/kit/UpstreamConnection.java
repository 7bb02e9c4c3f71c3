package io.zmtp.patterns.kit;


import java.time.Duration;
import java.util.Objects;

/**
 * A worker's connection to its one upstream peer (a queue or a broker), replaced when the peer is
 * lost: at once when the owner asks ({@link #reopen}: the peer said DISCONNECT), or after a
 * {@link Backoff} delay when the peer fell silent ({@link #reconnect}). The peer's silence is
 * watched by a {@link PeerLiveness} of one peer, which also beats the worker's heartbeats
 * ({@link Sockets#heartbeat()}); this class decides when that watch counts and what a lost peer
 * costs: the connection is closed ({@link Sockets#close()}) and, after the delay, a new one opened
 * ({@link Sockets#open()}), with no beats in between. Anything heard resets the backoff.
 *
 * <p>The guide's backoff is for a peer that accepts the connection but does not answer. A peer
 * that refuses connections (it is down), or a proxy in front of it that accepts and closes them,
 * is not silent: the owner's socket reconnects by itself, a few hundred milliseconds apart. So the
 * owner tells the connection what its socket's monitor says: {@link #connecting()} when it opens a
 * connection, {@link #connectionUp()} on each completed handshake, {@link #connectionLost()} when
 * the connection drops. Until the handshake the peer is not watched and no heartbeat is sent; on
 * each handshake the worker announces itself ({@link Sockets#announce()}: READY), since the peer on
 * a new connection does not know it, and the peer's silence counts from then, with its full
 * liveness. A worker is so back in service as soon as its peer accepts again. The owner may also
 * {@link #suspend}/{@link #resume} the watch (a worker frozen on purpose neither sends nor counts).
 *
 * <p>A message heard keeps the peer alive for the expiry from the next beat, as the guide's worker
 * restores its liveness on a message and counts it down per beat after: the beat after a message
 * never counts against the peer, however close to it the message came (at the end of a stall,
 * say, right after a beat that ran late).
 *
 * <p>Used on the component's loop only.
 */
public final class UpstreamConnection {

    /** The owner's sockets to the peer. */
    public interface Sockets {
        /** Opens a new connection (a new socket); the worker announces itself once it is up. */
        void open();

        /**
         * Announces the worker to the peer on the current connection (READY), which just came up
         * ({@link #connectionUp()}); an owner that does not report its handshakes needs none.
         */
        default void announce() {
        }

        /** Closes the current connection at once (linger 0). */
        void close();

        /** Sends one heartbeat on the current connection (dropped if it cannot go now). */
        void heartbeat();
    }

    /** What the connection tells its owner (for events). */
    public interface Listener {
        /** The peer was silent for {@code silence}: the connection is being closed. */
        default void lost(Duration silence) {
        }

        /** A new connection will be opened after {@code delay}. */
        default void reconnecting(Duration delay) {
        }
    }

    /** The one peer of the liveness: the other end of the current connection. */
    private static final Object PEER = "upstream";

    private final LoopClock clock;
    private final Heartbeat heartbeat;
    private final Backoff backoff;
    private final Sockets sockets;
    private final Listener listener;
    private final PeerLiveness<Object> liveness;

    /** Something was heard since the last beat: the next beat renews the peer's expiry from then. */
    private boolean heardSinceBeat;
    private boolean connected;
    /** The connection's handshake has not completed since it was opened or dropped: nothing counts. */
    private boolean down;
    private boolean suspended;
    private boolean stopped;
    private LoopClock.Timer reconnectTimer;

    public UpstreamConnection(LoopClock clock, Heartbeat heartbeat, Backoff backoff, Sockets sockets,
            Listener listener) {
        this.clock = Objects.requireNonNull(clock);
        this.heartbeat = Objects.requireNonNull(heartbeat);
        this.backoff = Objects.requireNonNull(backoff);
        this.sockets = Objects.requireNonNull(sockets);
        this.listener = listener == null ? new Listener() { } : listener;
        this.liveness = new PeerLiveness<>(clock, heartbeat, new PeerLiveness.Owner<>() {
            @Override
            public void beat(boolean counted) {
                onBeat();
            }

            @Override
            public void expired(Object peer) {
                UpstreamConnection.this.listener.lost(UpstreamConnection.this.heartbeat.expiry());
                reconnect();
            }
        });
    }

    /** Opens the first connection and starts heartbeating. */
    public void start() {
        open();
    }

    /** The peer sent something: it is alive (its full liveness from the next beat, the backoff reset). */
    public void heard() {
        backoff.reset();
        if (watching()) {
            liveness.heard(PEER);
            heardSinceBeat = true;
        }
    }

    /** Whether a connection is open (false while waiting to reconnect, or after stop). */
    public boolean isConnected() {
        return connected;
    }

    /**
     * The connection's handshake completed (first or after a drop): the worker announces itself,
     * and the peer's silence counts from now, with its full liveness. The backoff is not reset
     * here: a peer that accepts but never answers would otherwise be retried at the first delay
     * for ever; only something heard from it resets the backoff.
     */
    public void connectionUp() {
        if (stopped || !connected || !down) {
            return;
        }
        down = false;
        watch();
        sockets.announce();
    }

    /**
     * The connection just opened ({@link Sockets#open()}) is not up yet: nothing counts until
     * its handshake ({@link #connectionUp()}). For an owner that reports its handshakes.
     */
    public void connecting() {
        if (stopped || !connected) {
            return;
        }
        down = true;
        watch();
    }

    /**
     * The connection dropped: the socket reconnects by itself, so the peer's silence does not
     * count, and no heartbeat goes, until {@link #connectionUp()}.
     */
    public void connectionLost() {
        connecting();
    }

    /** Whether the current connection's handshake has completed (and it has not dropped since). */
    public boolean isUp() {
        return connected && !down;
    }

    /** Stops sending and counting (a frozen worker); the connection stays. */
    public void suspend() {
        suspended = true;
        watch();
    }

    /** Sends and counts again, the peer given its full liveness from now (also when it was not suspended). */
    public void resume() {
        suspended = false;
        liveness.remove(PEER);
        watch();
    }

    /** Closes the connection now and opens a new one after the backoff delay. */
    public void reconnect() {
        if (stopped || !connected) {
            return;
        }
        connected = false;
        liveness.stop(); // no beats while there is no connection
        watch();
        sockets.close();
        Duration delay = backoff.next();
        listener.reconnecting(delay);
        reconnectTimer = clock.schedule(() -> {
            reconnectTimer = null;
            if (!stopped) {
                open();
            }
        }, delay);
    }

    /**
     * Closes the connection now and opens a new one at once, without a backoff delay (the peer
     * asked for it: MDP's DISCONNECT). Does nothing while waiting to reconnect or after stop.
     */
    public void reopen() {
        if (stopped || !connected) {
            return;
        }
        liveness.stop();
        sockets.close();
        open();
    }

    /** Stops heartbeating and reconnecting; the owner closes its connection itself. */
    public void stop() {
        stopped = true;
        connected = false;
        liveness.stop();
        liveness.clear();
        if (reconnectTimer != null) {
            reconnectTimer.cancel();
            reconnectTimer = null;
        }
    }

    private void open() {
        connected = true;
        down = false; // counted from now, unless the owner says the connection is not up yet (connecting)
        liveness.start(); // the first beat an interval after the new connection
        liveness.remove(PEER);
        watch();
        sockets.open();
    }

    /** Whether the peer's silence counts and heartbeats go now. */
    private boolean watching() {
        return connected && !down && !suspended && !stopped;
    }

    /**
     * Watches the peer from now, with its full liveness, if it should be watched and is not yet;
     * stops watching it if it should not be.
     */
    private void watch() {
        if (!watching()) {
            liveness.remove(PEER);
        } else if (!liveness.contains(PEER)) {
            liveness.heard(PEER);
            heardSinceBeat = false;
        }
    }

    private void onBeat() {
        if (!watching()) {
            return;
        }
        if (heardSinceBeat) {
            heardSinceBeat = false;
            liveness.heard(PEER);
        }
        sockets.heartbeat();
    }
}
