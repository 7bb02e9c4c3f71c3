package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandler;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * ZMTP 3.0/3.1 on one Netty channel: greeting, security handshake, framing and the connection
 * commands (READY, ERROR, PING/PONG, SUBSCRIBE/CANCEL, and RFC 48's JOIN/LEAVE with the group
 * frame a RADIO's messages carry).
 *
 * <p>Put one in a pipeline (a new instance per channel) and, after it, a handler of your own.
 * Once the handshake succeeds the codec fires a {@link HandshakeCompleted} user event, then reads
 * {@link ZmtpMessage}s (and {@link ZmtpSubscription}s from subscribers). It accepts
 * {@link ZmtpMessage}, {@link ZmtpSubscription} and {@link ZmtpCommand} writes; writes made before
 * the handshake completes wait for it. Writes are batched until {@code flush()}.
 *
 * <p>When it closes a connection for a reason of its own (a malformed frame, a refused handshake,
 * an ERROR from the peer, a heartbeat timeout) it logs why, sends ZMTP ERROR where the protocol
 * says so, and fires {@link ConnectionFailed} before closing. PING and PONG never reach the
 * application.
 *
 * <p>The greeting is sent in two parts as libzmq does: signature and major version first, the
 * rest once the peer's major version is known. A peer announcing ZMTP 2.0 is refused, unless
 * {@link ZmtpOptions#zmtp20Fallback()} is on and the mechanism is NULL: then the connection speaks
 * 2.0 (a socket-type byte ends our greeting, identity frames replace the handshake, and frames
 * have no COMMAND flag; no heartbeats, no ERROR).
 *
 * <p>Inside, one stage at a time reads what arrives: {@code ZmtpGreeting}, then
 * {@code HandshakeDriver} (its commands read by the {@code FrameReader}) or, for a 2.0 peer,
 * {@code Zmtp20Handshake}, then the {@code FrameReader} alone, whose commands go to
 * {@code ConnectionCommands}; {@code ZmtpHeartbeat} owns the heartbeat timers,
 * {@code FrameWriter} encodes, {@code WritesBeforeReady} holds what is written before the
 * handshake ends, {@code DecodeTurn} counts the connection's per-turn quota and
 * {@code BudgetReservation} holds its share of the socket's inbound budget. The codec itself keeps
 * the connection's state, the decode loop, failure handling and the outbound dispatch.
 */
public final class ZmtpCodec extends ByteToMessageDecoder implements ChannelOutboundHandler {
    private static final Logger log = LoggerFactory.getLogger(ZmtpCodec.class);
    private static final PeerFailureLog peerLog = PeerFailureLog.get(ZmtpCodec.class);

    static final int DECODE_BATCH = Integer.getInteger("zmtp.decode.batch", 8);

    private enum State { GREETING, HANDSHAKE, ACTIVE, CLOSED }

    private final ZmtpOptions options;
    /** A RADIO's messages go out as their group frame, then the body (RFC 48). */
    private final boolean radio;
    /** This connection as its helpers see it: they hold this, not the codec. */
    private final Connection connection = new ConnectionView();
    private State state = State.GREETING;
    private ChannelHandlerContext ctx;
    private FrameWriter writer;
    private ZmtpGreeting greeting;
    /** Set from the greeting's end to the handshake's. */
    private HandshakeDriver handshake;
    /** Set from the greeting's end to the handshake's when the peer speaks ZMTP 2.0 (the fallback). */
    private Zmtp20Handshake zmtp20Handshake;
    private final FrameReader reader;
    /** Written on the event loop, read from any thread through the accessors. */
    private volatile ZmtpVersion version;
    private volatile ZmtpMetadata peerMetadata = ZmtpMetadata.EMPTY;
    private volatile boolean active;
    private FrameCipher cipher;

    /** What this connection holds of the socket's inbound budget; null without one. */
    private BudgetReservation budget;
    /** PINGs, TTL and the one PONG we may owe; made in handlerAdded. */
    private ZmtpHeartbeat heartbeat;
    /** This connection's share of its event loop (the per-turn quota); made in handlerAdded. */
    private DecodeTurn turn;
    /**
     * Commands handled in this decode call that produced no output (PING, PONG, unknown ones):
     * they count against the turn as messages do, or a flood of them would hold the loop.
     */
    private int commandsThisCall;
    /** The decoder's output list while decode() runs: fired before any event, to keep order. */
    private List<Object> currentOut;

    private final WritesBeforeReady writesBeforeReady = new WritesBeforeReady();
    private ScheduledFuture<?> handshakeTimer;
    /** Set when our side closes the channel (so channelInactive is not the peer hanging up). */
    private boolean closeRequested;
    /**
     * The channel's writability, set from each writability event (which reaches the codec before
     * the handlers after it) so that a write through {@link ConnectionWriter} reads a field instead
     * of asking the channel. Netty announces a channel becoming unwritable during the write that
     * makes it so; becoming writable again it may announce a little later, and until then this
     * says unwritable and writes wait in the pipe's backlog, which the event drains.
     */
    private boolean writable = true;

    public ZmtpCodec(ZmtpOptions options) {
        this.options = options;
        this.radio = options.socketType() == SocketType.RADIO;
        this.reader = new FrameReader(options, new ConnectionCommands(connection));
    }

    /** The options this codec was made with. */
    public ZmtpOptions options() {
        return options;
    }

    /** The negotiated version, or null before the greeting is read. */
    public ZmtpVersion version() {
        return version;
    }

    /** The peer's properties once the handshake has completed (empty before). */
    public ZmtpMetadata peerMetadata() {
        return peerMetadata;
    }

    /** Whether the handshake has completed and the connection is open. */
    public boolean isActive() {
        return active;
    }

    /** Whether a PONG is owed to the peer and not yet written (at most one ever is). */
    public boolean hasPendingPong() {
        return heartbeat != null && heartbeat.owesPong();
    }

    // ---------------------------------------------------------------- lifecycle

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        this.ctx = ctx;
        this.writer = new FrameWriter(ctx);
        this.heartbeat = new ZmtpHeartbeat(connection, writer);
        this.turn = new DecodeTurn(ctx, options.messagesPerTurn(), this::nextTurn);
        this.greeting = new ZmtpGreeting(options, ctx, writer);
        if (options.inboundBudget() != null) {
            this.budget = new BudgetReservation(connection, options.inboundBudget());
        }
        if (ctx.channel().isActive()) {
            // Not from here: while a ChannelInitializer is still adding handlers, a failed first
            // write (the peer already gone) would reach that initializer, which logs it as a
            // WARN on the event loop. channelActive, or this task, starts once it is done.
            ctx.executor().execute(this::start);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        start();
        super.channelActive(ctx);
    }

    private void start() {
        if (handshakeTimer != null || state != State.GREETING || !ctx.channel().isActive()) {
            return;
        }
        long ms = options.handshakeTimeout().toMillis();
        handshakeTimer = ctx.executor().schedule(() -> {
            if (state != State.ACTIVE && state != State.CLOSED) {
                fail(ConnectionFailed.Kind.HANDSHAKE_TIMEOUT,
                        "handshake not completed within " + ms + " ms", null);
            }
        }, ms, TimeUnit.MILLISECONDS);
        greeting.sendStart();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        writable = false; // as Channel.isWritable() says of a closed channel
        if (state == State.ACTIVE && turn.lastTurn()) {
            // Messages that were waiting for their turn arrived before the close: deliver them.
            channelRead(ctx, Unpooled.EMPTY_BUFFER);
        }
        if (state == State.HANDSHAKE && !closeRequested) {
            // The peer hung up mid-handshake: how a libzmq CURVE server answers a client with the
            // wrong server key, so report it like the other handshake failures.
            String reason = "peer closed the connection during the " + options.mechanism().name() + " handshake";
            peerLog.debug("{} {}", ctx.channel(), reason);
            state = State.CLOSED;
            ctx.fireUserEventTriggered(new ConnectionFailed(ConnectionFailed.Kind.HANDSHAKE, reason, true));
        }
        cleanup(ClosedChannelException::new);
        super.channelInactive(ctx);
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        cleanup(ClosedChannelException::new);
    }

    /**
     * The connection is gone: what it holds is released. {@code cause} makes the exception that
     * fails writes still waiting, only when some wait (most connections close with none, and an
     * exception fills in its stack trace when made).
     */
    private void cleanup(Supplier<? extends Throwable> cause) {
        state = State.CLOSED;
        active = false;
        releaseHeld(cause);
        if (writer != null) {
            writer.discard(cause);
        }
        if (handshake != null) {
            handshake.close();
            handshake = null;
        }
        if (cipher != null) {
            cipher.close();
            cipher = null;
        }
    }

    /** Stops the timers and gives back what the connection holds: the closing starts. */
    private void releaseHeld(Supplier<? extends Throwable> cause) {
        handshakeTimer = cancel(handshakeTimer);
        if (handshake != null) {
            handshake.endWait();
        }
        if (heartbeat != null) {
            heartbeat.stop();
        }
        reader.discardPartial();
        if (budget != null) {
            budget.release();
        }
        writesBeforeReady.failAll(cause);
    }

    private static ScheduledFuture<?> cancel(ScheduledFuture<?> f) {
        if (f != null) {
            f.cancel(false);
        }
        return null;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (state == State.CLOSED) {
            return;
        }
        if (cause instanceof java.io.IOException) {
            peerLog.debug("{} I/O error, closing: {}", ctx.channel(), cause.toString());
        } else {
            peerLog.warn("{} unexpected error, closing: {}", ctx.channel(), cause.toString());
            log.debug("{} unexpected error", ctx.channel(), cause);
        }
        ctx.fireExceptionCaught(cause);
        ctx.close();
    }

    // ---------------------------------------------------------------- inbound

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (turn.over()) {
            // This connection's turn is over: what it read waits for the next one (the decoder
            // sees no progress and stops calling).
            return;
        }
        if (state != State.ACTIVE) {
            // What the handshake writes in answer to this read leaves in one flush, at its end.
            writer.holdFlushes();
        }
        if (state == State.GREETING && handshakeTimer == null) {
            // Added to an open channel and given bytes before its start task ran (a handler that
            // detected ZMTP and handed on what it had read): our greeting's first part goes first.
            start();
        }
        currentOut = out;
        commandsThisCall = 0;
        try {
            decodeFrames(in, out);
            if (state == State.ACTIVE) {
                turn.count(in, out.size() + commandsThisCall);
            }
        } catch (ZmtpProtocolException e) {
            in.skipBytes(in.readableBytes());
            ConnectionFailed.Kind kind = e instanceof MessageTooLargeException ? ConnectionFailed.Kind.MESSAGE_TOO_LARGE
                    : state == State.ACTIVE ? ConnectionFailed.Kind.PROTOCOL
                    : ConnectionFailed.Kind.HANDSHAKE;
            fail(kind, e.getMessage(), e.errorReason(), e.isFatal());
        } finally {
            currentOut = null;
        }
        if (state == State.CLOSED) {
            in.skipBytes(in.readableBytes());
        }
        if (budget != null) {
            // What this connection holds of an unfinished message: its frames, and the start of an
            // unfinished frame left in the read buffer (BudgetReservation).
            budget.hold(state == State.CLOSED ? 0 : reader.partialBytes() + in.readableBytes());
        }
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (state != State.CLOSED) {
            decode(ctx, in, out);
        }
        in.skipBytes(in.readableBytes());
    }

    /** This connection's next turn: decodes what it had read (up to the quota), then reads again. */
    private void nextTurn() {
        if (!turn.begin() || state != State.ACTIVE) {
            return;
        }
        try {
            channelRead(ctx, Unpooled.EMPTY_BUFFER);
        } catch (Exception e) {
            exceptionCaught(ctx, e);
            return;
        }
        turn.resumeReading();
        // As at the end of a read, but without asking for a read (the gate decides that).
        discardSomeReadBytes();
        ctx.fireChannelReadComplete();
        writePendingPong();
    }

    private void decodeFrames(ByteBuf in, List<Object> out) throws ZmtpProtocolException {
        for (;;) {
            switch (state) {
                case GREETING:
                    boolean greeted;
                    try {
                        greeted = greeting.read(in);
                    } finally {
                        version = greeting.version();
                    }
                    if (!greeted) {
                        return;
                    }
                    state = State.HANDSHAKE;
                    if (version.isZmtp20()) {
                        zmtp20Handshake = new Zmtp20Handshake(options, ctx, writer, greeting.zmtp20PeerType());
                        greeting = null;
                        zmtp20Handshake.start();
                        break;
                    }
                    handshake = new HandshakeDriver(connection, writer, version, greeting.peerAsServer(),
                            greeting.readySent());
                    greeting = null;
                    handshake.start();
                    break;
                case HANDSHAKE:
                    if (zmtp20Handshake != null) {
                        ZmtpMetadata peer = zmtp20Handshake.read(in);
                        if (peer == null) {
                            return;
                        }
                        zmtp20HandshakeSucceeded(peer);
                        break;
                    }
                    // fall through: a 3.x handshake's commands are frames
                case ACTIVE:
                    if (!reader.read(in, out)) {
                        return;
                    }
                    if (out.size() + commandsThisCall >= DECODE_BATCH) {
                        // Hand messages on in small batches: the decoder fires them and calls
                        // again, so few decoded messages per connection are in flight at once.
                        return;
                    }
                    break;
                default:
                    return;
            }
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        writer.releaseFlushes();
        if (turn.over() || (budget != null && budget.paused())) {
            // Paused for this connection's turn or for the inbound budget: ByteToMessageDecoder
            // would ask for one more read when no message came out of this one (a turn of
            // commands alone), which is exactly the read to hold back.
            discardSomeReadBytes();
            ctx.fireChannelReadComplete();
        } else {
            super.channelReadComplete(ctx);
        }
        turn.readsDone();
        writePendingPong();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        writable = ctx.channel().isWritable();
        writePendingPong();
        super.channelWritabilityChanged(ctx);
    }

    private void writePendingPong() {
        heartbeat.writePendingPong();
    }

    private void fireOut(List<Object> out) {
        for (int i = 0; i < out.size(); i++) {
            ctx.fireChannelRead(out.get(i));
        }
        out.clear();
    }

    // ---------------------------------------------------------------- handshake

    /** The handshake succeeded ({@link HandshakeDriver}): the connection is open for messages. */
    private void handshakeSucceeded(ZmtpMetadata metadata, FrameCipher frameCipher) {
        peerMetadata = metadata;
        state = State.ACTIVE;
        active = true;
        cipher = frameCipher;
        reader.ready(metadata, frameCipher);
        writer.cipher(frameCipher);
        handshakeTimer = cancel(handshakeTimer);
        if (handshake != null) {
            handshake.close();
            handshake = null;
        }
        if (peerLog.isDebugEnabled()) {
            peerLog.debug("{} handshake complete: {} {} peer {}", ctx.channel(), version,
                    options.mechanism().name(), peerMetadata);
        }
        ctx.fireUserEventTriggered(new HandshakeCompleted(version, options.mechanism().name(), peerMetadata,
                newConnectionWriter(ctx)));
        heartbeat.start(version);
        if (writesBeforeReady.writeAll(this::encode)) {
            writer.flush();
        }
    }

    /** The ZMTP 2.0 handshake ({@link Zmtp20Handshake}) succeeded: frames follow, with 2.0's flags. */
    private void zmtp20HandshakeSucceeded(ZmtpMetadata metadata) {
        zmtp20Handshake = null;
        reader.zmtp20();
        handshakeSucceeded(metadata, null);
    }

    // ---------------------------------------------------------------- failure

    /**
     * Closes this connection for a protocol reason: logs it, sends ERROR when {@code errorReason}
     * is given, fires {@link ConnectionFailed}, and releases everything the connection holds.
     */
    private void fail(ConnectionFailed.Kind kind, String reason, String errorReason) {
        fail(kind, reason, errorReason, false);
    }

    private void fail(ConnectionFailed.Kind kind, String reason, String errorReason, boolean fatal) {
        if (state == State.CLOSED) {
            return;
        }
        boolean beforeHandshake = state != State.ACTIVE;
        state = State.CLOSED;
        active = false;
        if (currentOut != null) {
            fireOut(currentOut);
        }
        // A peer causes these: off the event loop and rate-limited (PeerFailureLog); every
        // string from the peer in the reason was escaped where the reason was made.
        if (kind == ConnectionFailed.Kind.HEARTBEAT_TIMEOUT || kind == ConnectionFailed.Kind.PEER_ERROR) {
            peerLog.debug("{} closing: {}", ctx.channel(), reason);
        } else {
            peerLog.warn("{} closing: {}", ctx.channel(), reason);
        }
        releaseHeld(() -> new ZmtpProtocolException(reason));
        if (errorReason != null && (version == null || !version.isZmtp20())) {
            writer.cipher(null);   // ERROR is always a plaintext command (and 2.0 has no commands)
            writer.writeCommand(ZmtpWire.ERROR, ZmtpWire.errorBody(errorReason));
        }
        ctx.fireUserEventTriggered(new ConnectionFailed(kind, reason, beforeHandshake, fatal));
        writer.flushThen(ChannelFutureListener.CLOSE);
    }

    // ---------------------------------------------------------------- outbound

    private ConnectionWriter newConnectionWriter(ChannelHandlerContext ctx) {
        writable = ctx.channel().isWritable();
        return new DirectWriter(ctx);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        switch (state) {
            case ACTIVE:
                encode(msg, promise);
                return;
            case CLOSED:
                ReferenceCountUtil.release(msg);
                promise.tryFailure(new ClosedChannelException());
                return;
            default:
                if (!(msg instanceof ZmtpMessage || msg instanceof ZmtpSubscription || msg instanceof ZmtpCommand)) {
                    ctx.write(msg, promise);
                    return;
                }
                writesBeforeReady.add(ctx, msg, promise);
        }
    }

    private void encode(Object msg, ChannelPromise promise) {
        try {
            if (msg instanceof ZmtpMessage) {
                ZmtpMessage m = (ZmtpMessage) msg;
                if (radio && m.groupUtf8() != null) {
                    writer.writeGroupFrame(m.groupUtf8());
                }
                writer.writeMessage(m, promise);
            } else if (msg instanceof ZmtpSubscription) {
                writer.writeSubscription((ZmtpSubscription) msg, version);
                writer.endWrite(promise);
            } else if (msg instanceof ZmtpCommand) {
                ZmtpCommand c = (ZmtpCommand) msg;
                writer.writeCommand(c.name(), c.data());
                writer.endWrite(promise);
            } else {
                writer.writeOther(msg, promise);
                return;
            }
        } catch (RuntimeException e) {
            promise.tryFailure(e);
        } finally {
            if (msg instanceof ZmtpMessage || msg instanceof ZmtpSubscription || msg instanceof ZmtpCommand) {
                ReferenceCountUtil.release(msg);
            }
        }
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        writer.flush();
    }

    @Override
    public void bind(ChannelHandlerContext ctx, SocketAddress localAddress, ChannelPromise promise) {
        ctx.bind(localAddress, promise);
    }

    @Override
    public void connect(ChannelHandlerContext ctx, SocketAddress remoteAddress, SocketAddress localAddress,
                        ChannelPromise promise) {
        ctx.connect(remoteAddress, localAddress, promise);
    }

    @Override
    public void disconnect(ChannelHandlerContext ctx, ChannelPromise promise) {
        closeRequested = true;
        ctx.disconnect(promise);
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        closeRequested = true;
        if (state != State.CLOSED) {
            writer.flush();
        }
        ctx.close(promise);
    }

    @Override
    public void deregister(ChannelHandlerContext ctx, ChannelPromise promise) {
        ctx.deregister(promise);
    }

    @Override
    public void read(ChannelHandlerContext ctx) {
        ctx.read();
    }

    // ---------------------------------------------------------------- the helpers' and the owner's views

    /** The connection as the codec's helpers see it ({@link Connection}): each call is the codec's own. */
    private final class ConnectionView implements Connection {
        @Override
        public ZmtpOptions options() {
            return options;
        }

        @Override
        public ChannelHandlerContext context() {
            return ctx;
        }

        @Override
        public boolean handshaking() {
            return state == State.HANDSHAKE;
        }

        @Override
        public boolean ready() {
            return state == State.ACTIVE;
        }

        @Override
        public boolean closed() {
            return state == State.CLOSED;
        }

        @Override
        public long framesReceived() {
            return reader.framesRead();
        }

        @Override
        public void commandHandled() {
            commandsThisCall++;
        }

        @Override
        public void pingReceived(ByteBuf data) {
            heartbeat.onPing(data);
        }

        @Override
        public void handshakeCommand(String name, ByteBuf data) throws ZmtpProtocolException {
            handshake.onCommand(name, data);
        }

        @Override
        public void handshakeSucceeded(ZmtpMetadata metadata, FrameCipher frameCipher) {
            ZmtpCodec.this.handshakeSucceeded(metadata, frameCipher);
        }

        @Override
        public void fail(ConnectionFailed.Kind kind, String reason, String errorReason, boolean fatal) {
            ZmtpCodec.this.fail(kind, reason, errorReason, fatal);
        }
    }

    /** The owning handler's writes straight into this codec ({@link ConnectionWriter}). */
    private final class DirectWriter implements ConnectionWriter {
        private final ChannelHandlerContext ctx;
        /** The channel's one void promise, fetched once rather than through the pipeline per write. */
        private final ChannelPromise voidPromise;

        DirectWriter(ChannelHandlerContext ctx) {
            this.ctx = ctx;
            this.voidPromise = ctx.voidPromise();
        }

        @Override
        public void write(Object msg) {
            ZmtpCodec.this.write(ctx, msg, voidPromise);
        }

        @Override
        public boolean isWritable() {
            return writable;
        }

        @Override
        public void flush() {
            writer.flush();
        }
    }
}
