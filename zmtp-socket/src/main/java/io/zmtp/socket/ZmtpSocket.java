package io.zmtp.socket;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import io.zmtp.transport.Endpoint;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.security.AuthenticatingNullMechanism;
import io.zmtp.wire.AuthenticationWaits;
import io.zmtp.wire.InboundBudget;
import io.zmtp.wire.Mechanism;
import io.zmtp.wire.NullMechanism;
import io.zmtp.wire.ZmtpOptions;
import io.zmtp.wire.ZmtpSubscription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * A ZeroMQ socket on one Netty event loop: the reactor API every pattern is written against.
 *
 * <p>A socket binds and connects any number of endpoints (tcp, ipc, inproc), in any order; each
 * connection becomes a {@link Pipe} once its handshake completes, and the socket type decides
 * where messages go (round-robin, by routing id, by subscription...). The socket, its pipes and
 * their channels all live on {@link #eventLoop()}, so routing state is never locked. Methods
 * may be called from any thread; those not on the loop are handed to it.
 *
 * <p>Messages arrive through the {@link MessageHandler} set with {@link #onMessage}, on the event
 * loop. {@link #send} returns a future that completes when the message has been handed to a peer
 * (or dropped, where the type drops); writes are flushed once per batch of work on the loop.
 * Timers scheduled with {@link #schedule} run on the same loop, so handlers and timers never race.
 */
public abstract class ZmtpSocket implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ZmtpSocket.class);

    private final ZmtpContext context;
    /** What this socket's parts share: loop, options, counters, monitor, flushes, state, pipes. */
    private final SocketCore core;
    private final SendReceiveState sendReceiveState;
    private final BlockedSends blocked;
    private final SendPath sends;
    private final ReceivePath receiving;
    private final SocketEndpoints endpoints;
    private final CloseSequence closing;

    /** What a socket is made with: the context that makes it, its options, and the loop it lives on. */
    record Setup(ZmtpContext context, SocketOptions options, EventLoop loop) {
    }

    ZmtpSocket(Setup setup, SocketType type) {
        ZmtpContext context = setup.context();
        SocketOptions options = setup.options();
        EventLoop loop = setup.loop();
        this.context = context;
        // one inbound budget for every connection of the socket, made or accepted
        InboundBudget budget = new InboundBudget(options.maxInboundBuffered(), context.transport().peerClosedProbe());
        // and one bound of handshakes waiting for an authenticator
        AuthenticationWaits waits = new AuthenticationWaits(options.maxWaitingAuthentications());
        Mechanism mechanism = options.mechanism();
        if (mechanism == NullMechanism.INSTANCE && !options.zapDomain().isEmpty()) {
            // libzmq: NULL with a ZAP domain asks the context's ZAP handler, when one is bound
            mechanism = AuthenticatingNullMechanism.of(context.zapAuthenticator());
        }
        Hooks hooks = new Hooks();
        this.core = new SocketCore(loop, type, type + "@" + Integer.toHexString(System.identityHashCode(this)),
                options, options.conflate() && conflates(),
                options.zmtpOptions(type, false, budget, waits, mechanism),
                options.zmtpOptions(type, true, budget, waits, mechanism),
                context.transport());
        core.events(hooks);
        this.sendReceiveState = new SendReceiveState(core, hooks);
        this.blocked = new BlockedSends(core, hooks, sendReceiveState);
        this.sends = new SendPath(core, hooks, sendReceiveState, blocked);
        this.receiving = new ReceivePath(core, sendReceiveState);
        this.endpoints = new SocketEndpoints(core, hooks, context.inproc(), context.nameResolvers());
        this.closing = new CloseSequence(core, endpoints, blocked, sendReceiveState, receiving, hooks,
                () -> context.socketClosed(this));
    }

    // ------------------------------------------------------------------ identity

    public final SocketType type() {
        return core.type();
    }

    public final SocketOptions options() {
        return core.options();
    }

    /**
     * Whether CONFLATE has an effect on this type (PUB, SUB, PUSH, PULL and DEALER, as in libzmq).
     * Called once, by this class's constructor: an override answers a constant.
     */
    boolean conflates() {
        return false;
    }

    /**
     * Whether this socket keeps only the last message in each of its queues: CONFLATE is set
     * and the type is PUB, SUB, PUSH, PULL or DEALER ({@link SocketOptions.Builder#conflate}).
     */
    public final boolean conflating() {
        return core.conflating();
    }

    /** The ZMTP settings of this socket's connections (those it makes, and channels of your own). */
    public final ZmtpOptions zmtpOptions() {
        return core.zmtpOptions();
    }

    /** The event loop that runs this socket, its connections, handlers and timers. */
    public final EventLoop eventLoop() {
        return core.loop();
    }

    public final ZmtpContext context() {
        return context;
    }

    /**
     * What this socket has done and holds now: messages and bytes in and out, high-water-mark
     * drops, reconnects, handshake failures by kind, queue depths. Callable from any thread, at
     * no cost to the socket: the event loop keeps the counters (single writer, no locks), this
     * reads them.
     */
    public final SocketMetrics metrics() {
        return core.counters().snapshot();
    }

    /** The number of connected peers (after their handshake). Call on the event loop. */
    public final int peerCount() {
        return core.pipes().size();
    }

    @Override
    public String toString() {
        return core.toString();
    }

    // ------------------------------------------------------------------ endpoints

    /**
     * Binds an endpoint. The future gives the endpoint actually bound: a tcp port 0 or {@code *}
     * is replaced by the port the system chose.
     */
    public final Future<String> bind(String endpoint) {
        return endpoints.bind(endpoint);
    }

    /**
     * Connects to an endpoint; the future completes at once (the connection is made, and remade
     * after failures, in the background, as ZeroMQ does). Connecting before the peer binds works.
     */
    public final Future<Void> connect(String endpoint) {
        return endpoints.connect(endpoint, null);
    }

    /**
     * ROUTER: connects as {@link #connect(String)} does, and routes to the peer reached through
     * this endpoint by {@code routingId} instead of the identity it announces, on every
     * connection made to it (ZMQ_CONNECT_ROUTING_ID, which libzmq sets for the next connect
     * call). 1-255 bytes, not starting with a zero byte; tcp:// and ipc:// only. Other types
     * take a null {@code routingId} only.
     */
    public Future<Void> connect(String endpoint, byte[] routingId) {
        if (routingId != null) {
            throw new IllegalArgumentException("a connect routing id is for ROUTER sockets, not " + type());
        }
        return connect(endpoint);
    }

    /** {@link #connect(String)}, the peer routed to by {@code routingId} (checked and copied) or null. */
    final Future<Void> connectEndpoint(String endpoint, byte[] routingId) {
        return endpoints.connect(endpoint, routingId);
    }

    /** Stops connecting to an endpoint and closes the connection made to it. */
    public final Future<Void> disconnect(String endpoint) {
        Future<Void> f = endpoints.disconnect(endpoint);
        inLoop(() -> disconnected(endpoint)); // after the endpoint stopped: both run on the loop in order
        return f;
    }

    /** Hook: the application disconnected {@code endpoint} (PEER forgets the id it kept for it). */
    void disconnected(String endpoint) {
    }

    /** Stops listening on an endpoint and closes the connections accepted through it. */
    public final Future<Void> unbind(String endpoint) {
        return endpoints.unbind(endpoint);
    }

    /** The endpoints bound so far, as resolved. Call on the event loop. */
    public final List<String> boundEndpoints() {
        return endpoints.boundEndpoints();
    }

    /** The server channel of a bound endpoint (tests), or null. Call on the event loop. */
    final Channel serverChannel(String endpoint) {
        return endpoints.serverChannel(endpoint);
    }

    /** Connections accepted on bound tcp:// and ipc:// endpoints and still open (tests). On the loop. */
    final int acceptedConnections() {
        return endpoints.acceptedConnections();
    }

    /** The channels of the socket's connections, made and accepted, still open (tests). On the loop. */
    final List<Channel> openChannels() {
        return core.channels().list();
    }

    /**
     * Why this type cannot use {@code endpoint}'s transport, or null when it can (all but STREAM
     * use them all). Checked by bind and connect.
     */
    String transportRefusal(Endpoint endpoint) {
        return null;
    }

    /**
     * A handler that joins a channel of your own to this socket: add a
     * {@link io.zmtp.wire.ZmtpCodec} made with {@link #zmtpOptions()} and then this handler to
     * the channel's pipeline. The channel must be registered on {@link #eventLoop()}.
     */
    public final ChannelHandler newPeerHandler() {
        return new PeerHandler(core, "channel", null);
    }

    /**
     * Sets up one tcp:// or ipc:// connection's pipeline: accepted on a bound endpoint, or made
     * to a connected one ({@code origin}, else null). A {@link io.zmtp.wire.ZmtpCodec} and a
     * {@link PeerHandler}; STREAM, which speaks no ZMTP, puts its raw handler there instead.
     */
    void initConnection(Channel ch, boolean accepted, String endpoint, PeerHandler.Origin origin) {
        ch.pipeline().addLast(new io.zmtp.wire.ZmtpCodec(accepted ? core.acceptedZmtpOptions() : core.zmtpOptions()),
                new PeerHandler(core, endpoint, origin));
    }

    /** The socket's shared state, for a type that sets up its own connections (STREAM). */
    final SocketCore core() {
        return core;
    }

    // ------------------------------------------------------------------ receiving

    /**
     * Sets the receiver of this socket's messages (run on the event loop). Messages that arrived
     * before a handler was set are delivered to it first.
     */
    public final ZmtpSocket onMessage(MessageHandler h) {
        inLoop(() -> receiving.handTo(h));
        return this;
    }

    /** Stops reading from every peer until {@link #resumeReceiving()} (application back-pressure). */
    public final void pauseReceiving() {
        inLoop(() -> receiving.pause(ReadPause.APPLICATION));
    }

    public final void resumeReceiving() {
        inLoop(() -> receiving.resume(ReadPause.APPLICATION));
    }

    /** A type reads from {@code pipe}, fair-queued with its other peers (the rest: {@link ReceivePath}). */
    final void receiveFrom(Pipe pipe) {
        receiving.receiveFrom(pipe);
    }

    /** The reverse of {@link #receiveFrom}. */
    final void stopReceivingFrom(Pipe pipe) {
        receiving.stopReceivingFrom(pipe);
    }

    /** Hands a message to the application (on the loop). */
    final void deliver(ZmtpMessage msg) {
        receiving.deliver(msg);
    }

    /** Hands a message to the application with its peer's routing id in front (ROUTER, STREAM). */
    final void deliverWithRoutingId(Pipe pipe, ZmtpMessage msg) {
        receiving.deliverWithRoutingId(pipe, msg);
    }

    /** A type's own reason to stop reading from every peer (REP's queue of waiting requests). */
    final void pauseReading(ReadPause reason) {
        receiving.pause(reason);
    }

    final void resumeReading(ReadPause reason) {
        receiving.resume(reason);
    }

    /** How many received messages the socket may hold for its application (see {@link ReceivePath#limit}). */
    final long receiveLimit() {
        return receiving.limit();
    }

    /** The socket's counters, which a type adds its drops to. */
    final SocketCounters counters() {
        return core.counters();
    }

    // ------------------------------------------------------------------ sending

    /**
     * Sends a message; ownership passes to the socket. The future completes when the message is
     * handed to a peer (or dropped where this type drops); it waits while every peer is at its
     * high-water mark, and fails with {@link SendTimeoutException} after the send timeout, with
     * {@link SocketStateException} when the type's state forbids a send now (a REQ awaiting its
     * reply, a REP with no request to answer: checked when the send is made, so a second request
     * queued behind a first fails at once), or with {@link UnroutableMessageException} (ROUTER
     * with the mandatory option; SERVER and PEER, whose message names no connected peer).
     *
     * @throws IllegalArgumentException at once, the message still the caller's, when the type's
     *         messages are single frames (CLIENT, SERVER, SCATTER...) and {@code msg} has more
     *         than one frame
     */
    public final Future<Void> send(ZmtpMessage msg) {
        SendPath.checkFrameCount(core.type(), msg.size()); // throws while the message is still the caller's
        EventLoop loop = core.loop();
        Promise<Void> p = loop.newPromise();
        if (loop.inEventLoop()) {
            sends.send(msg, p);
        } else {
            loop.execute(() -> sends.send(msg, p));
        }
        return p;
    }

    /** Sends a message of UTF-8 string frames. */
    public final Future<Void> send(String... frames) {
        SendPath.checkFrameCount(core.type(), frames.length); // before a message exists to leak
        return send(ZmtpMessage.ofStrings(frames));
    }

    /**
     * Sends without waiting, on the event loop only: true if the message was taken (sent or
     * dropped by design), false if it would have to wait at the high-water mark, in which case
     * the caller still owns it. Type errors throw (and the caller still owns the message).
     */
    public final boolean trySend(ZmtpMessage msg) {
        if (!core.loop().inEventLoop()) {
            throw new IllegalStateException("trySend must be called on the socket's event loop");
        }
        return sends.trySend(msg);
    }

    /**
     * Sends what waits, now that something other than room changed (XPUB_NODROP: the full
     * subscriber a send waited for has gone). Call on the event loop.
     */
    final void retryWaitingSends() {
        if (!blocked.isEmpty()) {
            blocked.retry();
        }
    }

    /** The number of sends waiting at the high-water mark. Call on the event loop. */
    public final int blockedSends() {
        return blocked.size();
    }

    /** The sends waiting at the high-water mark, where a {@link BlockingSocket} waits for room. */
    final BlockedSends blocked() {
        return blocked;
    }

    /** The type's send/receive state, which a {@link BlockingSocket} keeps on its user's thread. */
    final SendReceiveState sendReceiveState() {
        return sendReceiveState;
    }

    /** The receive path, whose limit and pauses a {@link BlockingSocket}'s inbox follows. */
    final ReceivePath receiving() {
        return receiving;
    }

    // ------------------------------------------------------------------ type hooks

    /**
     * Routes an outgoing message by this socket type's rules. On SENT or DROPPED the message
     * is consumed; on WOULD_BLOCK it is not. Validation errors must be thrown before anything
     * is consumed.
     */
    abstract SendResult route(ZmtpMessage msg);

    /**
     * Whether a send this type cannot route fails (with {@link UnroutableMessageException}) rather
     * than being dropped: a ROUTER with the mandatory option, always a SERVER or PEER. A
     * {@link BlockingSocket} then waits for the loop's verdict on each send. Any thread.
     */
    boolean failsUnroutable() {
        return core.options().routerMandatory();
    }

    /**
     * Why this type refuses to send {@code msg} whatever its peers (a RADIO's message without a
     * group), or null. {@link #route} throws it; a {@link BlockingSocket} checks it on its user's
     * thread before queueing the message, where a refusal could reach no caller.
     */
    String sendRefusalOf(ZmtpMessage msg) {
        return null;
    }

    /** A peer completed its handshake; return false to keep it but ignore it (duplicate ROUTER id). */
    abstract boolean pipeAttached(Pipe pipe);

    /** A peer went away. */
    abstract void pipeDetached(Pipe pipe);

    /** A message from a peer (ownership passes). */
    abstract void received(Pipe pipe, ZmtpMessage msg);

    /** A SUBSCRIBE or CANCEL from a peer; publishers override this. */
    void subscriptionReceived(Pipe pipe, ZmtpSubscription sub) {
        sub.release();
    }

    // ------------------------------------------------------------------ type hooks: send/receive state

    /*
     * A type whose sends depend on what it received (REQ, REP: libzmq's EFSM) keeps that state in
     * the four hooks below, which the SendPath calls (see there: from which thread).
     */

    /**
     * Why the type's state forbids a send now (the message of the {@link SocketStateException}
     * the application gets), or null when a send is allowed. The default: always allowed.
     */
    String sendRefusal() {
        return null;
    }

    /** The application made a send the state allowed: advance the state (REQ: await the reply). */
    void sendAccepted() {
    }

    /**
     * A send accepted by {@link #sendAccepted} never reached a peer (it timed out at the
     * high-water mark, failed to route, or the socket closed): undo what it did.
     */
    void sendAbandoned() {
    }

    /** The application took a received message (REQ: the reply came; REP: a request to answer). */
    void messageTaken() {
    }

    /**
     * Completes (on the event loop) once the type's state lets the application send: at once for
     * most types; for a REQ once the reply to its last request came (or that request failed to
     * go); for a REP once a request waits for its reply. Fails with {@link SocketClosedException}
     * if the socket closes first. For an application that paces its sends by the socket's state
     * (one sender at a time: the future says a send is allowed, not reserved).
     */
    public final Future<Void> whenSendAllowed() {
        Promise<Void> p = core.loop().newPromise();
        inLoop(() -> sendReceiveState.whenAllowed(p));
        return p;
    }

    // ------------------------------------------------------------------ type hooks: subscriptions

    /**
     * Subscribes to the messages whose first frame starts with {@code prefix} (SUB, XSUB). Other
     * types have no subscriptions: the future fails with {@link UnsupportedOperationException}.
     */
    public Future<Void> subscribe(byte[] prefix) {
        return core.loop().newFailedFuture(noSubscriptions("subscribe"));
    }

    /** {@link #subscribe(byte[])} with the prefix's UTF-8 bytes. */
    public final Future<Void> subscribe(String prefix) {
        return subscribe(prefix.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** Removes one subscription to {@code prefix} (SUB, XSUB; others fail as {@link #subscribe(byte[])}). */
    public Future<Void> unsubscribe(byte[] prefix) {
        return core.loop().newFailedFuture(noSubscriptions("unsubscribe"));
    }

    /** {@link #unsubscribe(byte[])} with the prefix's UTF-8 bytes. */
    public final Future<Void> unsubscribe(String prefix) {
        return unsubscribe(prefix.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    private UnsupportedOperationException noSubscriptions(String what) {
        return new UnsupportedOperationException("a " + type() + " socket cannot " + what + ": only SUB and XSUB "
                + "sockets have subscriptions");
    }

    // ------------------------------------------------------------------ pipes

    /**
     * ZMQ_PROBE_ROUTER, for the types that have it (ROUTER, DEALER, REQ: from their
     * {@link #pipeAttached}): with the option set, an empty message goes to the new peer first,
     * outside the type's own sending rules, so a ROUTER peer learns our routing id.
     */
    final void probeRouter(Pipe pipe) {
        if (core.options().probeRouter() && !core.type().isSingleFrame()) {
            pipe.write(ZmtpMessage.of(Unpooled.EMPTY_BUFFER));
        }
    }

    /** The attached peers (on the loop). */
    final List<Pipe> pipes() {
        return core.pipes();
    }

    final boolean isClosing() {
        return core.isClosing();
    }

    public final boolean isClosed() {
        return core.isClosed();
    }

    // ------------------------------------------------------------------ monitor and timers

    /** Adds a listener of this socket's events (run on the event loop). */
    public final AutoCloseable monitor(Consumer<SocketEvent> listener) {
        return core.monitor().add(listener);
    }

    /** Runs {@code task} on this socket's event loop after {@code delay}. */
    public final ScheduledFuture<?> schedule(Runnable task, Duration delay) {
        return core.loop().schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Runs {@code task} on this socket's event loop every {@code period}. */
    public final ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Duration initialDelay, Duration period) {
        return core.loop().scheduleAtFixedRate(task, initialDelay.toNanos(), period.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Runs {@code task} on the event loop: now if called there, else as soon as possible. */
    public final void inLoop(Runnable task) {
        core.inLoop(task);
    }

    // ------------------------------------------------------------------ options that may change

    /**
     * Changes the send high-water mark (ZMQ_SNDHWM), from any thread; the future completes once
     * the socket uses it. As in libzmq, it applies to peers that connect afterwards: a
     * connection keeps the mark it started with (a {@link BlockingSocket}'s own queue keeps the
     * size it was made with).
     */
    public final Future<Void> setSendHwm(int messages) {
        SocketOptions.builder().sendHwm(messages); // validates on the caller's thread
        return changeOptions(b -> b.sendHwm(messages));
    }

    /**
     * Changes the receive high-water mark (ZMQ_RCVHWM), from any thread. Unlike libzmq, where
     * it applies to new connections only, it applies at once: the mark is checked against the
     * messages waiting for the application, whichever peer they came from.
     */
    public final Future<Void> setReceiveHwm(int messages) {
        SocketOptions.builder().receiveHwm(messages);
        return changeOptions(b -> b.receiveHwm(messages));
    }

    /** Changes the send timeout (ZMQ_SNDTIMEO; null waits forever) for sends made afterwards. */
    public final Future<Void> setSendTimeout(Duration timeout) {
        return changeOptions(b -> b.sendTimeout(timeout));
    }

    /** Changes the linger (ZMQ_LINGER) that {@link #close()} uses. */
    public final Future<Void> setLinger(Duration linger) {
        SocketOptions.builder().linger(linger);
        return changeOptions(b -> b.linger(linger));
    }

    /**
     * Changes the reconnect interval and its maximum (ZMQ_RECONNECT_IVL, ZMQ_RECONNECT_IVL_MAX):
     * the maximum bounds the next delay each connected endpoint computes; the interval is where
     * an endpoint starts again once a handshake succeeds, and for endpoints connected afterwards.
     */
    public final Future<Void> setReconnectInterval(Duration interval, Duration max) {
        SocketOptions.builder().reconnectInterval(interval).reconnectIntervalMax(max);
        return changeOptions(b -> b.reconnectInterval(interval).reconnectIntervalMax(max));
    }

    /** ROUTER: changes ZMQ_ROUTER_MANDATORY for the sends made afterwards. */
    public final Future<Void> setRouterMandatory(boolean on) {
        return changeOptions(b -> b.routerMandatory(on));
    }

    /** Replaces the options on the loop with {@code change} applied (one thread writes them). */
    private Future<Void> changeOptions(UnaryOperator<SocketOptions.Builder> change) {
        Promise<Void> p = core.loop().newPromise();
        inLoop(() -> {
            try {
                core.options(change.apply(core.options().toBuilder()).build());
                p.trySuccess(null);
            } catch (RuntimeException e) {
                p.tryFailure(e);
            }
        });
        return p;
    }

    // ------------------------------------------------------------------ closing

    /** Closes with the socket's linger setting. */
    @Override
    public final void close() {
        close(core.options().linger());
    }

    /**
     * Closes the socket: stops listening and reconnecting, keeps flushing queued messages for up
     * to {@code linger}, then closes every connection and drops what is left. Sends still
     * waiting at the high-water mark fail. The future completes once everything is released.
     */
    public final Future<Void> close(Duration linger) {
        inLoop(() -> closing.start(linger));
        return closing.future();
    }

    /** Completes when the socket has closed. */
    public final Future<Void> closeFuture() {
        return closing.future();
    }

    /** Hook for types that hold messages of their own (REP's queued requests): the socket is closing. */
    void beforeClose() {
    }

    // ------------------------------------------------------------------ the parts' view of this socket

    /**
     * This socket as its parts see it: the type's hooks ({@link TypeHooks}), and what its peers'
     * connections report ({@link PipeEvents}), which lands here, in one place, on the loop.
     */
    private final class Hooks implements TypeHooks, PipeEvents {
        @Override
        public SendResult route(ZmtpMessage msg) {
            return ZmtpSocket.this.route(msg);
        }

        @Override
        public String sendRefusal() {
            return ZmtpSocket.this.sendRefusal();
        }

        @Override
        public void sendAccepted() {
            ZmtpSocket.this.sendAccepted();
        }

        @Override
        public void sendAbandoned() {
            ZmtpSocket.this.sendAbandoned();
        }

        @Override
        public void messageTaken() {
            ZmtpSocket.this.messageTaken();
        }

        @Override
        public String transportRefusal(Endpoint endpoint) {
            return ZmtpSocket.this.transportRefusal(endpoint);
        }

        @Override
        public void initConnection(Channel ch, boolean accepted, String endpoint, PeerHandler.Origin origin) {
            ZmtpSocket.this.initConnection(ch, accepted, endpoint, origin);
        }

        @Override
        public void beforeClose() {
            ZmtpSocket.this.beforeClose();
        }

        /** A peer completed its handshake: it joins the type's strategies, and waiting sends may go. */
        @Override
        public void attach(Pipe pipe) {
            if (core.isClosing()) {
                pipe.close();
                return;
            }
            core.counters().peers(core.addPipe(pipe));
            pipe.attached = true;
            if (!pipeAttached(pipe)) {
                pipe.attached = false;
                log.debug("{} ignoring {}", core, pipe);
                return;
            }
            blocked.roomAvailable();
        }

        /** A peer went: the type forgets it, and a closing socket may be done. */
        @Override
        public void detach(Pipe pipe) {
            boolean was = core.removePipe(pipe);
            core.counters().peers(core.pipes().size());
            if (pipe.attached) {
                pipe.attached = false;
                pipeDetached(pipe);
            }
            core.flushes().forget(pipe);
            if (was) {
                core.partGone();
            }
        }

        @Override
        public void received(Pipe pipe, ZmtpMessage msg) {
            if (receiving.dropsMultipart(pipe, msg)) {
                return;
            }
            ZmtpSocket.this.received(pipe, msg);
        }

        @Override
        public void subscriptionReceived(Pipe pipe, ZmtpSubscription sub) {
            ZmtpSocket.this.subscriptionReceived(pipe, sub);
        }

        @Override
        public void roomAvailable(Pipe pipe) {
            blocked.roomAvailable();
        }
    }
}
