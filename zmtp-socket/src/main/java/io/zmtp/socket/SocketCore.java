package io.zmtp.socket;

import io.netty.channel.EventLoop;
import io.zmtp.transport.IoTransport;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpOptions;

import java.util.ArrayList;
import java.util.List;

/**
 * What the parts of one socket share, on its event loop: the loop itself, the settings, the
 * counters and the monitor, the flushes of this batch of work, the open/closing/closed state, the
 * peers after their handshakes (its {@link Pipe}s) and the channels still open. The send and
 * receive paths, the close, the endpoints and the peers' handlers each take this core instead of
 * the {@link ZmtpSocket}: they see the socket's state, not its API, and what they must tell the
 * socket goes through {@link PipeEvents} or {@link TypeHooks}.
 *
 * <p>A socket's pipes refer to its core, and the core lists its pipes: the one loop of references
 * in this layer, as between libzmq's pipes and their socket. Everything here is touched on the
 * loop only, but {@link #options()}, {@link #isClosing()} and {@link #isClosed()}, which any thread
 * may read.
 */
final class SocketCore {
    enum State { OPEN, CLOSING, CLOSED }

    private final EventLoop loop;
    private final SocketType type;
    private final String name;
    private final boolean conflating;
    /** Replaced on the loop by the setters of dynamic options; read from any thread. */
    private volatile SocketOptions options;
    private final ZmtpOptions zmtpOptions;
    private final ZmtpOptions acceptedZmtpOptions;
    private final IoTransport transport;
    private final SocketCounters counters = new SocketCounters();
    private final SocketMonitor monitor;
    private final FlushBatch flushes;
    private final OpenChannels channels;
    private final ArrayList<Pipe> pipes = new ArrayList<>();
    private PipeEvents events;
    /** Written on the loop by the close; read from any thread. */
    private volatile State state = State.OPEN;
    /** Run when a part (a pipe, a channel, a listener) of a closing socket has gone. */
    private Runnable partGone = () -> { };

    SocketCore(EventLoop loop, SocketType type, String name, SocketOptions options, boolean conflating,
               ZmtpOptions zmtpOptions, ZmtpOptions acceptedZmtpOptions, IoTransport transport) {
        this.loop = loop;
        this.type = type;
        this.name = name;
        this.options = options;
        this.conflating = conflating;
        this.zmtpOptions = zmtpOptions;
        this.acceptedZmtpOptions = acceptedZmtpOptions;
        this.transport = transport;
        this.monitor = new SocketMonitor(name, counters);
        this.flushes = new FlushBatch(loop);
        this.channels = new OpenChannels(this::partGone);
    }

    /** The socket's receiver of what its pipes report; set once by the socket. */
    void events(PipeEvents e) {
        this.events = e;
    }

    PipeEvents events() {
        return events;
    }

    EventLoop loop() {
        return loop;
    }

    SocketType type() {
        return type;
    }

    SocketOptions options() {
        return options;
    }

    /** Replaces the options (on the loop: one thread writes them). */
    void options(SocketOptions o) {
        this.options = o;
    }

    /** CONFLATE set on a type that conflates (PUB, SUB, PUSH, PULL, DEALER). */
    boolean conflating() {
        return conflating;
    }

    /** The ZMTP settings of connections the socket makes, and of channels of the user's own. */
    ZmtpOptions zmtpOptions() {
        return zmtpOptions;
    }

    /** The ZMTP settings of connections accepted on bound endpoints (their default heartbeats differ). */
    ZmtpOptions acceptedZmtpOptions() {
        return acceptedZmtpOptions;
    }

    IoTransport transport() {
        return transport;
    }

    SocketCounters counters() {
        return counters;
    }

    SocketMonitor monitor() {
        return monitor;
    }

    FlushBatch flushes() {
        return flushes;
    }

    /** A channel (made or accepted) now exists: tracked until it closes; closed at once if the socket is closing. */
    void channelOpened(io.netty.channel.Channel ch) {
        channels.opened(ch);
        if (isClosing()) {
            ch.close();
        }
    }

    /** The channels made or accepted, and listeners, not yet closed. */
    OpenChannels channels() {
        return channels;
    }

    /**
     * The peers after their handshakes (a live, read-only view: the loop's only). Their order
     * carries no meaning: a peer that leaves takes the last one's place, so that thousands of
     * peers leaving at once cost no scan of those that stay.
     */
    List<Pipe> pipes() {
        return pipesView;
    }

    private final List<Pipe> pipesView = java.util.Collections.unmodifiableList(pipes);

    /** {@code pipe} joins the socket's peers; the number of peers after. */
    int addPipe(Pipe pipe) {
        pipe.peerIndex = pipes.size();
        pipes.add(pipe);
        return pipes.size();
    }

    /** {@code pipe} leaves the socket's peers (false if it was not among them), in constant time. */
    boolean removePipe(Pipe pipe) {
        int i = pipe.peerIndex;
        if (i < 0 || i >= pipes.size() || pipes.get(i) != pipe) {
            return false;
        }
        Pipe last = pipes.remove(pipes.size() - 1);
        if (last != pipe) {
            pipes.set(i, last);
            last.peerIndex = i;
        }
        pipe.peerIndex = -1;
        return true;
    }

    /** Runs {@code task} on the loop: now if called there, else as soon as possible. */
    void inLoop(Runnable task) {
        if (loop.inEventLoop()) {
            task.run();
        } else {
            loop.execute(task);
        }
    }

    boolean isClosing() {
        return state != State.OPEN;
    }

    boolean isClosed() {
        return state == State.CLOSED;
    }

    /** OPEN to CLOSING; false if the close had begun already. */
    boolean startClosing() {
        if (state != State.OPEN) {
            return false;
        }
        state = State.CLOSING;
        return true;
    }

    /** CLOSING to CLOSED; false unless closing. */
    boolean finishClosing() {
        if (state != State.CLOSING) {
            return false;
        }
        state = State.CLOSED;
        return true;
    }

    /** Who hears that a part of a closing socket has gone (the close, to see whether it is done). */
    void whenPartGone(Runnable r) {
        this.partGone = r;
    }

    /** A pipe, channel or listener has gone. */
    void partGone() {
        partGone.run();
    }

    /** The socket's name in logs and events: its type and identity, as {@link ZmtpSocket#toString()}. */
    @Override
    public String toString() {
        return name;
    }
}
