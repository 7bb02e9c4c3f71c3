package io.zmtp.patterns.kit;


import java.time.Duration;
import java.util.Objects;

/**
 * A worker's link to its one upstream peer (a queue or broker): heartbeats it, counts down its
 * liveness, and replaces the connection with backoff when the peer falls silent.
 *
 * <p>Every heartbeat interval the link sends a heartbeat through {@link Connection#heartbeat()},
 * and takes one from the peer's liveness if nothing was {@link #heard()} since the previous tick.
 * At zero the peer is dead: the connection is closed ({@link Connection#close()}) and, after the
 * {@link Backoff} delay, a new one is opened ({@link Connection#open()}); ticks stop meanwhile and
 * start again with the new connection. Anything heard restores the liveness and resets the
 * backoff. A late tick (the loop stalled) does not count ({@link HeartbeatTicker}). The owner may
 * also {@link #reconnect} at once (the peer said DISCONNECT), and {@link #suspend}/{@link #resume}
 * the heartbeat (a worker frozen on purpose neither sends nor counts).
 *
 * <p>The guide's backoff is for a peer that accepts the connection but does not answer. A peer
 * that refuses connections (it is down), or a proxy in front of it that accepts and closes them,
 * is not silent: the owner's socket reconnects by itself, a few hundred milliseconds apart. So the
 * owner tells the link what its socket's monitor says: {@link #connecting()} when it opens a
 * connection, {@link #connectionUp()} on each completed handshake, {@link #connectionLost()} when
 * the connection drops. Until the handshake nothing is
 * counted and no heartbeat is sent; on each handshake the worker announces itself
 * ({@link Connection#announce()}: READY), since the peer on a new connection does not know it,
 * and the peer's silence counts from then, with its full liveness. A worker is so back in service
 * as soon as its peer accepts again.
 *
 * <p>Used on the component's loop only.
 */
public final class HeartbeatLink {

    /** The owner's connection to the peer. */
    public interface Connection {
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

    /** What the link tells its owner (for events). */
    public interface Listener {
        /** The peer was silent for {@code silence}: the connection is being closed. */
        default void lost(Duration silence) {
        }

        /** A new connection will be opened after {@code delay}. */
        default void reconnecting(Duration delay) {
        }
    }

    private final LoopClock clock;
    private final Heartbeat heartbeat;
    private final Backoff backoff;
    private final Connection connection;
    private final Listener listener;
    private final HeartbeatTicker ticker;

    private int liveness;
    private boolean heard;
    private boolean connected;
    /** The connection's handshake has not completed since it was opened or dropped: nothing counts. */
    private boolean down;
    private boolean suspended;
    private boolean stopped;
    private LoopClock.Timer reconnectTimer;

    public HeartbeatLink(LoopClock clock, Heartbeat heartbeat, Backoff backoff, Connection connection,
            Listener listener) {
        this.clock = Objects.requireNonNull(clock);
        this.heartbeat = Objects.requireNonNull(heartbeat);
        this.backoff = Objects.requireNonNull(backoff);
        this.connection = Objects.requireNonNull(connection);
        this.listener = listener == null ? new Listener() { } : listener;
        this.ticker = new HeartbeatTicker(clock, heartbeat.interval(), this::onTick);
    }

    /** Opens the first connection and starts heartbeating. */
    public void start() {
        open();
    }

    /** The peer sent something: it is alive (liveness restored, backoff reset). */
    public void heard() {
        liveness = heartbeat.liveness();
        heard = true;
        backoff.reset();
    }

    /** Whether a connection is open (false while waiting to reconnect, or after stop). */
    public boolean isConnected() {
        return connected;
    }

    /** The peer's remaining liveness (intervals of silence it is still given). */
    public int liveness() {
        return liveness;
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
        liveness = heartbeat.liveness();
        heard = false;
        connection.announce();
    }

    /**
     * The connection just opened ({@link Connection#open()}) is not up yet: nothing counts until
     * its handshake ({@link #connectionUp()}). For an owner that reports its handshakes.
     */
    public void connecting() {
        if (stopped || !connected) {
            return;
        }
        down = true;
    }

    /**
     * The connection dropped: the socket reconnects by itself, so the peer's silence does not
     * count, and no heartbeat goes, until {@link #connectionUp()}.
     */
    public void connectionLost() {
        if (stopped || !connected) {
            return;
        }
        down = true;
    }

    /** Whether the current connection's handshake has completed (and it has not dropped since). */
    public boolean isUp() {
        return connected && !down;
    }

    /** Stops sending and counting (a frozen worker); the connection stays. */
    public void suspend() {
        suspended = true;
    }

    /** Sends and counts again, the peer given its full liveness. */
    public void resume() {
        suspended = false;
        liveness = heartbeat.liveness();
        heard = false;
    }

    /** Closes the connection now and opens a new one after the backoff delay. */
    public void reconnect() {
        if (stopped || !connected) {
            return;
        }
        connected = false;
        ticker.stop(); // no ticks while there is no connection
        connection.close();
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
        ticker.stop();
        connection.close();
        open();
    }

    /** Stops heartbeating and reconnecting; the owner closes its connection itself. */
    public void stop() {
        stopped = true;
        ticker.stop();
        if (reconnectTimer != null) {
            reconnectTimer.cancel();
            reconnectTimer = null;
        }
        connected = false;
    }

    private void open() {
        liveness = heartbeat.liveness();
        heard = false;
        connected = true;
        down = false; // counted from now, unless the owner says the connection is not up yet (connecting)
        ticker.start(); // the first tick an interval after the new connection
        connection.open();
    }

    private void onTick(boolean silenceCounts) {
        if (stopped || suspended || !connected || down) {
            return;
        }
        if (heard) {
            heard = false;
        } else if (silenceCounts && --liveness <= 0) {
            listener.lost(heartbeat.expiry());
            reconnect();
            return;
        }
        connection.heartbeat();
    }
}
