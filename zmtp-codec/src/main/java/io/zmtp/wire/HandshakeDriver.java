package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.EventExecutor;

import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * Runs one connection's security handshake after the greeting (event loop only): makes the
 * mechanism's {@link MechanismHandshake}, hands it the handshake commands the
 * {@link FrameReader} reads, and is the {@link HandshakeSession} it answers through. On
 * {@code complete} it checks the peer's Socket-Type and identity once more, adds User-Id and
 * Peer-Address to the peer's metadata and tells the connection; on {@code fail} the connection closes.
 */
final class HandshakeDriver implements HandshakeSession {
    private final Connection connection;
    private final ChannelHandlerContext ctx;
    private final FrameWriter writer;
    private final ZmtpOptions options;
    private final ZmtpVersion version;
    private final boolean peerAsServer;
    /** READY left with the greeting already (plain NULL, see ZmtpCodec's start). */
    private final boolean readySent;
    private MechanismHandshake handshake;
    /** The answer the handshake waits for, or null. */
    private Wait wait;

    HandshakeDriver(Connection connection, FrameWriter writer, ZmtpVersion version, boolean peerAsServer,
                    boolean readySent) {
        this.readySent = readySent;
        this.connection = connection;
        this.ctx = connection.context();
        this.writer = writer;
        this.options = connection.options();
        this.version = version;
        this.peerAsServer = peerAsServer;
    }

    /** Makes the mechanism's handshake and lets it send its first command. */
    void start() throws ZmtpProtocolException {
        handshake = options.mechanism().newHandshake(this);
        handshake.start();
    }

    /** A command the peer sent during the handshake (ERROR aside): the mechanism's to judge. */
    void onCommand(String name, ByteBuf data) throws ZmtpProtocolException {
        ZmtpCommand cmd = new ZmtpCommand(name, data.retain());
        try {
            handshake.onCommand(cmd);
        } finally {
            cmd.release();
        }
    }

    /** Ends a wait for an answer: its place is given back and the peer is read again. */
    void endWait() {
        if (wait != null) {
            wait.end(false);
        }
    }

    /** Releases the mechanism's state (the handshake ended either way). */
    void close() {
        endWait();
        if (handshake != null) {
            handshake.close();
            handshake = null;
        }
    }

    // ---------------------------------------------------------------- HandshakeSession

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
    public String zapDomain() {
        return options.zapDomain();
    }

    @Override
    public byte[] localRoutingId() {
        return options.identity();
    }

    @Override
    public <T> boolean await(Supplier<? extends CompletionStage<T>> ask,
                             BiConsumer<? super T, ? super Throwable> then, Runnable timedOut) {
        if (wait != null) {
            throw new IllegalStateException("the handshake already waits for an answer");
        }
        AuthenticationWaits waits = options.authenticationWaits();
        if (!waits.tryEnter()) {
            return false;
        }
        Wait w = new Wait(waits);
        wait = w;
        ReadGate.pause(ctx.channel(), ReadGate.AUTHENTICATION);
        CompletionStage<T> answer;
        try {
            answer = ask.get();
        } catch (RuntimeException | Error e) {
            w.end(true);
            throw e;
        }
        if (answer == null) {
            answer = CompletableFuture.failedFuture(new NullPointerException("no answer (a null stage)"));
        }
        w.answer = answer;
        w.timer = ctx.executor().schedule(() -> {
            if (w.end(false) && connection.handshaking()) {
                timedOut.run();
            }
        }, options.authenticationTimeout().toNanos(), TimeUnit.NANOSECONDS);
        answer.whenComplete((value, failure) -> {
            Runnable deliver = () -> {
                if (w.end(true) && connection.handshaking()) {
                    then.accept(value, failure);
                }
            };
            if (ctx.executor().inEventLoop()) {
                deliver.run();
            } else {
                try {
                    ctx.executor().execute(deliver);
                } catch (RejectedExecutionException e) {
                    // the loop has shut down: the connection is gone with it, and w.end() ran there
                }
            }
        });
        return true;
    }

    /** One wait for an answer; it ends once, on the answer, the timeout or the close. */
    private final class Wait {
        private final AuthenticationWaits waits;
        private CompletionStage<?> answer;
        private io.netty.util.concurrent.Future<?> timer;
        private boolean ended;

        Wait(AuthenticationWaits waits) {
            this.waits = waits;
        }

        /**
         * Ends the wait (event loop only); false if it had ended already. A wait that ends
         * without its answer (timeout, close) cancels it, so whoever would answer can forget it.
         */
        boolean end(boolean answered) {
            if (ended) {
                return false;
            }
            ended = true;
            if (!answered && answer != null) {
                try {
                    answer.toCompletableFuture().cancel(false);
                } catch (UnsupportedOperationException e) {
                    // a stage that cannot be cancelled: its answer is ignored when it comes
                }
            }
            waits.leave();
            if (timer != null) {
                timer.cancel(false);
            }
            if (wait == this) {
                wait = null;
            }
            ReadGate.resume(ctx.channel(), ReadGate.AUTHENTICATION);
            return true;
        }
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
    public void sendMetadata(String name) {
        if (readySent && ZmtpWire.READY.equals(name)) {
            return;   // it went out with our greeting
        }
        HandshakeSession.super.sendMetadata(name);
    }

    @Override
    public void sendCommand(String name, ByteBuf data) {
        if (connection.closed()) {
            return;
        }
        writer.writeCommand(name, data);
        writer.flush();
    }

    @Override
    public void complete(ZmtpMetadata metadata, String userId, FrameCipher frameCipher) {
        if (!connection.handshaking()) {
            return;
        }
        try {
            checkPeer(metadata);
        } catch (ZmtpProtocolException e) {
            if (frameCipher != null) {
                frameCipher.close();
            }
            connection.fail(ConnectionFailed.Kind.HANDSHAKE, e.getMessage(), e.errorReason(), e.isFatal());
            return;
        }
        ZmtpMetadata.Builder b = metadata.toBuilder();
        if (userId == null) {
            userId = ctx.channel().attr(TransportUserId.KEY).get();   // e.g. a TLS client certificate
        }
        if (userId != null) {
            b.put(ZmtpMetadata.USER_ID, userId);
        }
        String remote = PeerAddressText.of(ctx.channel());
        if (remote != null) {
            b.put(ZmtpMetadata.PEER_ADDRESS, remote);
        }
        connection.handshakeSucceeded(b.build(), frameCipher);
    }

    @Override
    public void fail(ZmtpProtocolException e) {
        connection.fail(ConnectionFailed.Kind.HANDSHAKE, e.getMessage(), e.errorReason(), e.isFatal());
    }

    @Override
    public void fail(String reason, String errorReason, boolean authentication) {
        connection.fail(authentication ? ConnectionFailed.Kind.AUTHENTICATION
                : ConnectionFailed.Kind.HANDSHAKE, reason, errorReason, false);
    }

    /**
     * Whether we can talk to a peer that announced {@code metadata}: a known Socket-Type that
     * pairs with ours, an identity of at most 255 bytes. Mechanisms call it (through
     * {@link #decodePeerMetadata}) before they send READY, as libzmq does, and
     * {@link #complete} again.
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
}
