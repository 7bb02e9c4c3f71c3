package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandler;
import io.netty.channel.ChannelPromise;
import io.netty.channel.PendingWriteQueue;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.zmtp.security.FrameCipher;
import io.zmtp.security.HandshakeSession;
import io.zmtp.security.MechanismHandshake;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * ZMTP 3.0/3.1 on one Netty channel: greeting, security handshake, framing and the connection
 * commands (READY, ERROR, PING/PONG, SUBSCRIBE/CANCEL).
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
 * rest once the peer's major version is known (this is where a ZMTP 2.0 downgrade would branch).
 */
public final class ZmtpCodec extends ByteToMessageDecoder implements ChannelOutboundHandler {
    private static final Logger log = LoggerFactory.getLogger(ZmtpCodec.class);
    private static final PeerFailureLog peerLog = PeerFailureLog.get(ZmtpCodec.class);

    static final int DECODE_BATCH = Integer.getInteger("zmtp.decode.batch", 8);

    /** Room for a command name and CURVE's box around a frame, above the message size limit. */
    private static final int COMMAND_OVERHEAD = 512;

    private enum State { SIGNATURE, MAJOR, GREETING_REST, HANDSHAKE, ACTIVE, CLOSED }

    private final ZmtpOptions options;
    private State state = State.SIGNATURE;
    private ChannelHandlerContext ctx;
    private FrameWriter writer;
    /** Written on the event loop, read from any thread through the accessors. */
    private volatile ZmtpVersion version;
    private volatile ZmtpMetadata peerMetadata = ZmtpMetadata.EMPTY;
    private volatile boolean active;
    private boolean peerAsServer;
    private MechanismHandshake handshake;
    private FrameCipher cipher;

    private ZmtpMessage partial;
    /** The unfinished message's bytes plus {@link ZmtpOptions#FRAME_COST} per frame. */
    private long partialBytes;
    /** What this connection has reserved of the socket's inbound budget (0 without one). */
    private long budgetHeld;
    /** Resumes reading once the inbound budget frees up (registered while paused for it). */
    private Runnable budgetWake;
    /** PINGs, TTL and the one PONG we may owe; made in handlerAdded. */
    private ZmtpHeartbeat heartbeat;
    /** Messages decoded in this connection's current turn of the event loop. */
    private int decodedThisTurn;
    /** The turn's messages are decoded: the rest waits, unread, for the task {@link #nextTurn}. */
    private boolean turnOver;
    /** The decoder's output list while decode() runs: fired before any event, to keep order. */
    private List<Object> currentOut;

    /** Writes made before the handshake completed (made on the first one). */
    private PendingWriteQueue writesBeforeReady;
    private ScheduledFuture<?> handshakeTimer;
    /** Set when our side closes the channel (so channelInactive is not the peer hanging up). */
    private boolean closeRequested;
    /** Counts every received frame: the heartbeat timers compare snapshots of it. */
    private long framesReceived;

    public ZmtpCodec(ZmtpOptions options) {
        this.options = options;
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
        this.heartbeat = new ZmtpHeartbeat(this, ctx, writer);
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
        if (handshakeTimer != null || state != State.SIGNATURE || !ctx.channel().isActive()) {
            return;
        }
        long ms = options.handshakeTimeout().toMillis();
        handshakeTimer = ctx.executor().schedule(() -> {
            if (state != State.ACTIVE && state != State.CLOSED) {
                fail(ConnectionFailed.Kind.HANDSHAKE_TIMEOUT,
                        "handshake not completed within " + ms + " ms", null);
            }
        }, ms, TimeUnit.MILLISECONDS);
        ByteBuf start = ctx.alloc().buffer(ZmtpWire.GREETING_FIRST_PART);
        ZmtpWire.writeGreetingStart(start);
        writer.writeRaw(start);
        start.release();
        writer.flush();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (turnOver && state == State.ACTIVE) {
            // Messages that were waiting for their turn arrived before the close: deliver them.
            turnOver = false;
            decodedThisTurn = Integer.MIN_VALUE;
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
        cleanup(new ClosedChannelException());
        super.channelInactive(ctx);
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        cleanup(new ClosedChannelException());
    }

    private void cleanup(Throwable cause) {
        if (state != State.CLOSED) {
            state = State.CLOSED;
        }
        active = false;
        cancelTimers();
        if (partial != null) {
            partial.release();
            partial = null;
            partialBytes = 0;
        }
        releaseBudget();
        failWritesBeforeReady(cause);
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

    private void cancelTimers() {
        handshakeTimer = cancel(handshakeTimer);
        if (heartbeat != null) {
            heartbeat.stop();
        }
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
        if (turnOver) {
            // This connection's turn is over: what it read waits for the next one (the decoder
            // sees no progress and stops calling).
            return;
        }
        currentOut = out;
        try {
            decodeFrames(in, out);
            if (state == State.ACTIVE) {
                endTurnIfDone(in, out.size());
            }
        } catch (ZmtpProtocolException e) {
            in.skipBytes(in.readableBytes());
            ConnectionFailed.Kind kind = state == State.ACTIVE ? ConnectionFailed.Kind.PROTOCOL
                    : ConnectionFailed.Kind.HANDSHAKE;
            fail(kind, e.getMessage(), e.errorReason(), e.isFatal());
        } finally {
            currentOut = null;
        }
        if (state == State.CLOSED) {
            in.skipBytes(in.readableBytes());
        }
        accountBudget(in.readableBytes());
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (state != State.CLOSED) {
            decode(ctx, in, out);
        }
        in.skipBytes(in.readableBytes());
    }

    /**
     * Counts the messages of this decode call against the turn's quota; when it is used up and
     * bytes are left, stops reading and leaves the rest for the next turn: a zero-delay scheduled
     * task, which Netty takes into its task queue only when a task run starts, so the turn comes
     * after the other connections of this I/O pass had theirs (and a turn scheduled from a turn,
     * after the next poll). A task given to {@code execute} would run within the current task run:
     * Netty runs the tasks added while it runs tasks, for up to a second, so a connection that
     * resubmitted itself would keep its turn and starve the poll.
     */
    private void endTurnIfDone(ByteBuf in, int decoded) {
        int quota = options.messagesPerTurn();
        if (quota <= 0 || decodedThisTurn < 0) {
            return;
        }
        decodedThisTurn += decoded;
        if (decodedThisTurn >= quota && in.isReadable()) {
            turnOver = true;
            ReadGate.pause(ctx.channel(), ReadGate.TURN);
            ctx.executor().schedule(this::nextTurn, 0, TimeUnit.NANOSECONDS);
        }
    }

    /** This connection's next turn: decodes what it had read (up to the quota), then reads again. */
    private void nextTurn() {
        if (!turnOver) {
            return;
        }
        turnOver = false;
        decodedThisTurn = 0;
        if (state != State.ACTIVE) {
            return;
        }
        try {
            channelRead(ctx, Unpooled.EMPTY_BUFFER);
        } catch (Exception e) {
            exceptionCaught(ctx, e);
            return;
        }
        if (!turnOver) {
            decodedThisTurn = 0;
            ReadGate.resume(ctx.channel(), ReadGate.TURN);
        }
        // As at the end of a read, but without asking for a read (the gate decides that).
        discardSomeReadBytes();
        ctx.fireChannelReadComplete();
        writePendingPong();
    }

    private void decodeFrames(ByteBuf in, List<Object> out) throws ZmtpProtocolException {
        for (;;) {
            switch (state) {
                case SIGNATURE:
                    if (!readSignature(in)) {
                        return;
                    }
                    break;
                case MAJOR:
                    if (!readMajor(in)) {
                        return;
                    }
                    break;
                case GREETING_REST:
                    if (!readGreetingRest(in)) {
                        return;
                    }
                    break;
                case HANDSHAKE:
                case ACTIVE: {
                    if (!readFrame(in, out)) {
                        return;
                    }
                    if (out.size() >= DECODE_BATCH) {
                        // Hand messages on in small batches: the decoder fires them and calls
                        // again, so few decoded messages per connection are in flight at once.
                        return;
                    }
                    break;
                }
                default:
                    return;
            }
        }
    }

    private boolean readSignature(ByteBuf in) throws ZmtpProtocolException {
        int n = in.readableBytes();
        int ri = in.readerIndex();
        if (n >= 1 && in.getUnsignedByte(ri) != 0xFF) {
            throw new ZmtpProtocolException("not a ZMTP peer: bad greeting signature (first byte 0x"
                    + Integer.toHexString(in.getUnsignedByte(ri)) + ")");
        }
        if (n < 10) {
            return false;
        }
        if ((in.getByte(ri + 9) & 0x01) == 0) {
            // A ZMTP 1.0 peer: bytes 1-8 were a length and byte 9 its flags.
            throw new ZmtpProtocolException("peer speaks ZMTP 1.0, which is not supported");
        }
        in.skipBytes(10);
        state = State.MAJOR;
        return true;
    }

    private boolean readMajor(ByteBuf in) throws ZmtpProtocolException {
        if (!in.isReadable()) {
            return false;
        }
        int major = in.readUnsignedByte();
        if (major < 3) {
            onLegacyPeer(major);
        }
        // Our greeting's second part goes out once the peer is known to speak 3.x.
        ByteBuf rest = ctx.alloc().buffer(ZmtpWire.GREETING_SIZE - ZmtpWire.GREETING_FIRST_PART);
        ZmtpWire.writeGreetingRest(rest, options.version().minor(), options.mechanism().name(),
                options.mechanism().asServer());
        writer.writeRaw(rest);
        rest.release();
        writer.flush();
        state = State.GREETING_REST;
        return true;
    }

    /** The peer announced ZMTP 1.x or 2.x. A downgrade to ZMTP 2.0 framing would start here. */
    private void onLegacyPeer(int major) throws ZmtpProtocolException {
        String which = major <= 1 ? "ZMTP 2.0 (revision 1)" : "ZMTP 2.x (revision " + major + ")";
        throw new ZmtpProtocolException("peer speaks " + which + "; only ZMTP 3.x is supported");
    }

    private boolean readGreetingRest(ByteBuf in) throws ZmtpProtocolException {
        if (in.readableBytes() < ZmtpWire.GREETING_SIZE - ZmtpWire.GREETING_FIRST_PART) {
            return false;
        }
        int minor = in.readUnsignedByte();
        String mechanism = readMechanismName(in);
        peerAsServer = in.readByte() != 0;
        in.skipBytes(31);
        version = ZmtpVersion.negotiate(options.version(), 3, minor);
        if (!mechanism.equals(options.mechanism().name())) {
            throw new ZmtpProtocolException("security mechanism mismatch: we use "
                    + options.mechanism().name() + ", the peer uses " + FrameText.escape(mechanism));
        }
        state = State.HANDSHAKE;
        handshake = options.mechanism().newHandshake(new Session());
        handshake.start();
        return true;
    }

    private static String readMechanismName(ByteBuf in) {
        int start = in.readerIndex();
        int len = 0;
        while (len < ZmtpWire.MECHANISM_FIELD_SIZE && in.getByte(start + len) != 0) {
            len++;
        }
        String name = in.toString(start, len, StandardCharsets.US_ASCII);
        in.skipBytes(ZmtpWire.MECHANISM_FIELD_SIZE);
        return name;
    }

    private boolean readFrame(ByteBuf in, List<Object> out) throws ZmtpProtocolException {
        int avail = in.readableBytes();
        if (avail < 2) {
            return false;
        }
        int ri = in.readerIndex();
        int flags = in.getUnsignedByte(ri);
        if ((flags & ZmtpWire.FLAGS_RESERVED) != 0) {
            throw new ZmtpProtocolException("frame with reserved flag bits set (flags 0x"
                    + Integer.toHexString(flags) + ")");
        }
        boolean command = (flags & ZmtpWire.FLAG_COMMAND) != 0;
        if (command && (flags & ZmtpWire.FLAG_MORE) != 0) {
            throw new ZmtpProtocolException("command frame with the MORE flag");
        }
        // Once a mechanism encrypts, every frame is one of its commands (CURVE's MESSAGE). libzmq
        // sends MESSAGE as a plain data frame (its flags travel inside the box), so the outer
        // COMMAND bit is not required; MORE has no meaning there.
        if (cipher != null) {
            if ((flags & ZmtpWire.FLAG_MORE) != 0) {
                throw new ZmtpProtocolException("MORE flag on the outside of an encrypted frame");
            }
            command = true;
        }
        long size;
        int header;
        if ((flags & ZmtpWire.FLAG_LONG) != 0) {
            if (avail < 9) {
                return false;
            }
            size = in.getLong(ri + 1);
            header = 9;
            if (size < 0) {
                throw new ZmtpProtocolException("frame size above 2^63-1");
            }
        } else {
            size = in.getUnsignedByte(ri + 1);
            header = 2;
        }
        checkSize(command, size);
        if (avail - header < size) {
            return false;
        }
        in.skipBytes(header);
        ByteBuf body = size == 0 ? Unpooled.EMPTY_BUFFER : in.readRetainedSlice((int) size);
        framesReceived++;
        if (command) {
            try {
                onCommand(body, out);
            } finally {
                body.release();
            }
        } else if (state != State.ACTIVE) {
            body.release();
            throw new ZmtpProtocolException("message frame before the handshake completed");
        } else if (cipher != null) {
            body.release();
            throw new ZmtpProtocolException("plaintext message frame on an encrypted connection");
        } else {
            onDataFrame((flags & ZmtpWire.FLAG_MORE) != 0, body, out);
        }
        return true;
    }

    /**
     * Checked on the frame header, before any byte of the body is buffered. Sizes are at most
     * 2^63-1 and limits at most {@link ZmtpOptions#MAX_MESSAGE_SIZE_LIMIT}, so no sum overflows.
     */
    private void checkSize(boolean command, long size) throws ZmtpProtocolException {
        if (command) {
            long max = state == State.ACTIVE
                    ? (cipher != null ? options.maxMessageSize() : options.maxMetadataSize()) + COMMAND_OVERHEAD
                    : options.maxMetadataSize() + COMMAND_OVERHEAD;
            if (size > max) {
                throw new ZmtpProtocolException("command frame of " + size + " bytes exceeds the limit of "
                        + max + " bytes");
            }
            checkBudget(size);
        } else {
            long cost = partial == null ? 0 : ZmtpOptions.FRAME_COST;
            if (size > options.maxMessageSize() - partialBytes - cost) {
                throw new ZmtpProtocolException("message of at least " + (partialBytes + size + cost)
                        + " bytes (counting " + ZmtpOptions.FRAME_COST + " per frame after the first) exceeds"
                        + " maxMessageSize " + options.maxMessageSize());
            }
            checkBudget(partialBytes + size + cost);
        }
    }

    /** A message that alone needs more than the socket's whole inbound budget can never be read. */
    private void checkBudget(long needed) throws ZmtpProtocolException {
        InboundBudget budget = options.inboundBudget();
        if (budget != null && needed > budget.limit()) {
            throw new ZmtpProtocolException("message of at least " + needed
                    + " bytes exceeds the socket's inbound budget of " + budget.limit() + " bytes");
        }
    }

    private void onDataFrame(boolean more, ByteBuf body, List<Object> out) throws ZmtpProtocolException {
        if (partial == null) {
            partial = ZmtpMessage.newMessage();
        } else if (partial.size() >= options.maxFramesPerMessage()) {
            body.release();
            throw new ZmtpProtocolException("message of more than " + options.maxFramesPerMessage()
                    + " frames (maxFramesPerMessage)");
        }
        partialBytes += body.readableBytes() + (partial.size() == 0 ? 0 : ZmtpOptions.FRAME_COST);
        partial.add(body);
        if (partialBytes > options.maxMessageSize()) {
            throw new ZmtpProtocolException("message of " + partialBytes + " bytes (counting "
                    + ZmtpOptions.FRAME_COST + " per frame after the first) exceeds maxMessageSize "
                    + options.maxMessageSize());
        }
        if (!more) {
            ZmtpMessage m = partial;
            partial = null;
            partialBytes = 0;
            m.properties(peerMetadata);
            out.add(m);
        }
    }

    private void onCommand(ByteBuf body, List<Object> out) throws ZmtpProtocolException {
        if (!body.isReadable()) {
            throw new ZmtpProtocolException("command frame without a name");
        }
        if (state == State.HANDSHAKE && isLibzmqPlainError(body)) {
            body.skipBytes(LIBZMQ_PLAIN_ERROR.length);
            onError(body);
            return;
        }
        String name = readCommandName(body);
        if (ZmtpWire.ERROR.equals(name)) {
            onError(body);
            return;
        }
        if (state == State.HANDSHAKE) {
            ZmtpCommand cmd = new ZmtpCommand(name, body.retain());
            try {
                handshake.onCommand(cmd);
            } finally {
                cmd.release();
            }
            return;
        }
        if (cipher != null) {
            ByteBuf plain = cipher.decrypt(name, body);
            try {
                if (!plain.isReadable()) {
                    throw new ZmtpProtocolException("encrypted frame without flags");
                }
                int innerFlags = plain.readUnsignedByte();
                if ((innerFlags & ZmtpWire.FLAG_COMMAND) != 0) {
                    onClearCommand(plain, out);
                } else {
                    checkSize(false, plain.readableBytes());
                    onDataFrame((innerFlags & ZmtpWire.FLAG_MORE) != 0, plain.retain(), out);
                }
            } finally {
                plain.release();
            }
            return;
        }
        onActiveCommand(name, body, out);
    }

    /**
     * Reads a command's name (a length octet, then that many ASCII letters, as the ABNF of 23/37
     * has it): the one place names are parsed, for plaintext commands and for those that arrive
     * inside a CURVE MESSAGE box alike.
     */
    static String readCommandName(ByteBuf body) throws ZmtpProtocolException {
        int nameLen = body.readUnsignedByte();
        if (nameLen == 0 || nameLen > body.readableBytes()) {
            throw new ZmtpProtocolException("command with a truncated or empty name");
        }
        for (int i = 0; i < nameLen; i++) {
            byte c = body.getByte(body.readerIndex() + i);
            if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) {
                throw new ZmtpProtocolException("command name with a character that is not a letter");
            }
        }
        return body.readCharSequence(nameLen, StandardCharsets.US_ASCII).toString();
    }

    /** A command that arrived inside an encrypted MESSAGE box. */
    private void onClearCommand(ByteBuf body, List<Object> out) throws ZmtpProtocolException {
        if (!body.isReadable()) {
            throw new ZmtpProtocolException("command frame without a name");
        }
        String name = readCommandName(body);
        if (ZmtpWire.ERROR.equals(name)) {
            onError(body);
        } else {
            onActiveCommand(name, body, out);
        }
    }

    private void onActiveCommand(String name, ByteBuf data, List<Object> out) throws ZmtpProtocolException {
        switch (name) {
            case ZmtpWire.PING:
                heartbeat.onPing(data);
                break;
            case ZmtpWire.PONG:
                break; // any traffic is a sign of life; nothing else to do
            case ZmtpWire.SUBSCRIBE:
            case ZmtpWire.CANCEL:
                out.add(new ZmtpSubscription(ZmtpWire.SUBSCRIBE.equals(name), data.readRetainedSlice(data.readableBytes())));
                break;
            case ZmtpWire.READY:
                throw new ZmtpProtocolException("READY after the handshake");
            default:
                peerLog.debug("{} ignoring unknown command {}", ctx.channel(), FrameText.escape(name));
        }
    }

    /**
     * libzmq's PLAIN mechanism (4.2.3 and later) writes ERROR as 5E "RROR" + reason: its constant
     * "\x05ERROR" is read by C as the hex escape \x05E then "RROR". It is recognised during the
     * handshake so that a refusal by a libzmq PLAIN server is reported as the ERROR it is.
     */
    private static final byte[] LIBZMQ_PLAIN_ERROR = {0x5E, 'R', 'R', 'O', 'R'};

    private static boolean isLibzmqPlainError(ByteBuf body) {
        if (body.readableBytes() < LIBZMQ_PLAIN_ERROR.length) {
            return false;
        }
        for (int i = 0; i < LIBZMQ_PLAIN_ERROR.length; i++) {
            if (body.getByte(body.readerIndex() + i) != LIBZMQ_PLAIN_ERROR[i]) {
                return false;
            }
        }
        return true;
    }

    private void onError(ByteBuf data) {
        String reason = "";
        if (data.isReadable()) {
            int len = Math.min(data.readUnsignedByte(), data.readableBytes());
            reason = data.toString(data.readerIndex(), len, StandardCharsets.US_ASCII);
        }
        fail(ConnectionFailed.Kind.PEER_ERROR, "peer sent ERROR \"" + FrameText.escape(reason) + "\"", null);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (budgetWake != null) {
            // Paused for the inbound budget: ByteToMessageDecoder would ask for one more read when
            // no message came out of this one, which is exactly the read to hold back.
            discardSomeReadBytes();
            ctx.fireChannelReadComplete();
        } else {
            super.channelReadComplete(ctx);
        }
        if (!turnOver) {
            // The end of this connection's reads in this turn of the loop: its next reads start a
            // new turn.
            decodedThisTurn = 0;
        }
        writePendingPong();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        writePendingPong();
        super.channelWritabilityChanged(ctx);
    }

    private void writePendingPong() {
        heartbeat.writePendingPong();
    }

    // ---------------------------------------------------------------- inbound budget

    /**
     * Reserves what this connection holds of an unfinished message ({@code buffered} bytes of an
     * unfinished frame left in the read buffer, plus the unfinished message's frames) against the
     * socket's inbound budget, and pauses reading while the budget is overdrawn and this
     * connection holds more than {@link InboundBudget#SMALL_HOLDING}.
     */
    private void accountBudget(int buffered) {
        InboundBudget budget = options.inboundBudget();
        if (budget == null) {
            return;
        }
        long held = state == State.CLOSED ? 0 : partialBytes + buffered;
        budget.change(held - budgetHeld);
        budgetHeld = held;
        if (held > InboundBudget.SMALL_HOLDING && budget.overdrawn() && budgetWake == null) {
            ReadGate.pause(ctx.channel(), ReadGate.BUDGET);
            EventExecutor loop = ctx.executor();
            Runnable wake = new Runnable() {
                @Override
                public void run() {
                    if (loop.inEventLoop()) {
                        resumeFromBudget(this);
                    } else {
                        loop.execute(() -> resumeFromBudget(this));
                    }
                }
            };
            budgetWake = wake;
            budget.await(wake);
        }
    }

    private void resumeFromBudget(Runnable wake) {
        if (budgetWake != wake) {
            return;
        }
        budgetWake = null;
        if (state != State.CLOSED) {
            ReadGate.resume(ctx.channel(), ReadGate.BUDGET);
        }
    }

    /** Returns this connection's reservation (it closed, or it finished its message). */
    private void releaseBudget() {
        InboundBudget budget = options.inboundBudget();
        if (budget == null) {
            return;
        }
        if (budgetWake != null) {
            budget.cancel(budgetWake);
            budgetWake = null;
        }
        budget.change(-budgetHeld);
        budgetHeld = 0;
    }

    /** The bytes this connection has reserved of its socket's inbound budget (event loop only). */
    long budgetHeld() {
        return budgetHeld;
    }

    private void fireOut(List<Object> out) {
        for (int i = 0; i < out.size(); i++) {
            ctx.fireChannelRead(out.get(i));
        }
        out.clear();
    }

    // ---------------------------------------------------------------- handshake

    private final class Session implements HandshakeSession {
        @Override
        public ByteBufAllocator alloc() {
            return ctx.alloc();
        }

        @Override
        public EventExecutor executor() {
            return ctx.executor();
        }

        @Override
        public ZmtpVersion version() {
            return version;
        }

        @Override
        public boolean peerAsServer() {
            return peerAsServer;
        }

        @Override
        public SocketAddress remoteAddress() {
            return ctx.channel().remoteAddress();
        }

        @Override
        public ZmtpMetadata localMetadata() {
            return options.localMetadata();
        }

        @Override
        public ZmtpMetadata decodePeerMetadata(ByteBuf data) throws ZmtpProtocolException {
            ZmtpMetadata metadata = ZmtpMetadata.decode(data, options.maxMetadataProperties());
            checkPeer(metadata);
            return metadata;
        }

        @Override
        public void sendCommand(String name, ByteBuf data) {
            if (state == State.CLOSED) {
                return;
            }
            writer.writeCommand(name, data);
            writer.flush();
        }

        @Override
        public void complete(ZmtpMetadata metadata, String userId, FrameCipher frameCipher) {
            if (state != State.HANDSHAKE) {
                return;
            }
            onHandshakeComplete(metadata, userId, frameCipher);
        }

        @Override
        public void fail(String reason, String errorReason, boolean authentication) {
            ZmtpCodec.this.fail(authentication ? ConnectionFailed.Kind.AUTHENTICATION
                    : ConnectionFailed.Kind.HANDSHAKE, reason, errorReason);
        }
    }

    /**
     * Whether we can talk to a peer that announced {@code metadata}: a known Socket-Type that
     * pairs with ours, an identity of at most 255 bytes. Mechanisms call it (through
     * {@link HandshakeSession#decodePeerMetadata}) before they send READY, as libzmq does, and
     * the codec again when the handshake completes.
     */
    private void checkPeer(ZmtpMetadata metadata) throws ZmtpProtocolException {
        byte[] typeName = metadata.get(ZmtpMetadata.SOCKET_TYPE);
        SocketType peerType = SocketType.fromWireName(typeName);
        if (peerType == null) {
            throw new ZmtpProtocolException(typeName == null ? "peer sent no Socket-Type"
                    : "peer's Socket-Type " + FrameText.escape(new String(typeName, StandardCharsets.ISO_8859_1))
                    + " is unknown", "Invalid socket type", true);
        }
        if (!options.socketType().isCompatibleWith(peerType)) {
            throw new ZmtpProtocolException("socket types " + options.socketType() + " and "
                    + peerType + " cannot talk", "Invalid socket type", true);
        }
        byte[] identity = metadata.get(ZmtpMetadata.IDENTITY);
        if (identity != null && identity.length > 255) {
            throw new ZmtpProtocolException("peer identity longer than 255 bytes");
        }
    }

    private void onHandshakeComplete(ZmtpMetadata metadata, String userId, FrameCipher frameCipher) {
        try {
            checkPeer(metadata);
        } catch (ZmtpProtocolException e) {
            if (frameCipher != null) {
                frameCipher.close();
            }
            fail(ConnectionFailed.Kind.HANDSHAKE, e.getMessage(), e.errorReason(), e.isFatal());
            return;
        }
        ZmtpMetadata.Builder b = metadata.toBuilder();
        if (userId != null) {
            b.put(ZmtpMetadata.USER_ID, userId);
        }
        SocketAddress remote = ctx.channel().remoteAddress();
        if (remote != null) {
            b.put(ZmtpMetadata.PEER_ADDRESS, remote.toString());
        }
        peerMetadata = b.build();
        state = State.ACTIVE;
        active = true;
        cipher = frameCipher;
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
                new ConnectionWriter(this, ctx)));
        heartbeat.start(version);
        if (writesBeforeReady != null) {
            // In the order they were made; a failure meanwhile fails the rest (failWritesBeforeReady).
            // The queue's remove() releases its message: the retain is what encode releases.
            Object msg;
            while (writesBeforeReady != null && (msg = writesBeforeReady.current()) != null) {
                ReferenceCountUtil.retain(msg);
                encode(msg, writesBeforeReady.remove());
            }
            writesBeforeReady = null;
            writer.flush();
        }
    }

    // ---------------------------------------------------------------- failure

    /** The handshake has completed and the connection is not closed (event loop only). */
    boolean ready() {
        return state == State.ACTIVE;
    }

    /** Frames received so far: the heartbeat compares snapshots of it (event loop only). */
    long framesReceived() {
        return framesReceived;
    }

    /**
     * Closes this connection for a protocol reason: logs it, sends ERROR when {@code errorReason}
     * is given, fires {@link ConnectionFailed}, and releases everything the connection holds.
     */
    void fail(ConnectionFailed.Kind kind, String reason, String errorReason) {
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
        cancelTimers();
        if (partial != null) {
            partial.release();
            partial = null;
            partialBytes = 0;
        }
        releaseBudget();
        ZmtpProtocolException cause = new ZmtpProtocolException(reason);
        failWritesBeforeReady(cause);
        if (errorReason != null) {
            writer.cipher(null);   // ERROR is always a plaintext command
            writer.writeCommand(ZmtpWire.ERROR, errorBody(errorReason));
        }
        ctx.fireUserEventTriggered(new ConnectionFailed(kind, reason, beforeHandshake, fatal));
        writer.flushThen(ChannelFutureListener.CLOSE);
    }

    private ByteBuf errorBody(String reason) {
        byte[] r = reason.getBytes(StandardCharsets.US_ASCII);
        int len = Math.min(255, r.length);
        ByteBuf b = Unpooled.buffer(1 + len);
        b.writeByte(len);
        b.writeBytes(r, 0, len);
        return b;
    }

    private void failWritesBeforeReady(Throwable cause) {
        if (writesBeforeReady == null) {
            return;
        }
        PendingWriteQueue q = writesBeforeReady;
        writesBeforeReady = null;
        q.removeAndFailAll(cause);
    }

    // ---------------------------------------------------------------- outbound

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
                if (writesBeforeReady == null) {
                    writesBeforeReady = new PendingWriteQueue(ctx);
                }
                writesBeforeReady.add(msg, promise);
        }
    }

    private void encode(Object msg, ChannelPromise promise) {
        try {
            if (msg instanceof ZmtpMessage) {
                writer.writeMessage((ZmtpMessage) msg, promise);
            } else if (msg instanceof ZmtpSubscription) {
                writeSubscription((ZmtpSubscription) msg);
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

    /** A 3.1 peer gets SUBSCRIBE/CANCEL commands; a 3.0 peer the message form (0x01/0x00 + topic). */
    private void writeSubscription(ZmtpSubscription sub) {
        if (version.hasCommands31()) {
            writer.writeCommand(sub.isSubscribe() ? ZmtpWire.SUBSCRIBE : ZmtpWire.CANCEL, sub.topic());
        } else {
            ByteBuf body = ctx.alloc().buffer(1 + sub.topic().readableBytes());
            try {
                body.writeByte(sub.isSubscribe() ? 1 : 0);
                body.writeBytes(sub.topic(), sub.topic().readerIndex(), sub.topic().readableBytes());
                writer.writeFrame(0, body);
            } finally {
                body.release();
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
}
