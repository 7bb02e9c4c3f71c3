package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;

import java.net.SocketAddress;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/** What the codec offers a {@link MechanismHandshake} for one connection. */
public interface HandshakeSession {

    ByteBufAllocator alloc();

    /** The connection's event loop, for an authenticator that answers later. */
    EventExecutor executor();

    /** The negotiated protocol revision. */
    ZmtpVersion version();

    /** The as-server flag of the peer's greeting. */
    boolean peerAsServer();

    /** The peer's address (for authenticators and logs). */
    SocketAddress remoteAddress();

    /** The socket's ZAP domain ({@link ZmtpOptions#zapDomain()}), empty when none. */
    String zapDomain();

    /** Our routing id, as libzmq's ZAP request carries it: the socket's identity, empty when none. */
    byte[] localRoutingId();

    /**
     * Asks for an answer made elsewhere (an authenticator's) and waits for it without blocking
     * the event loop. The wait first takes one place of the socket's {@link AuthenticationWaits}
     * (none left: false, and {@code ask} is not called), then calls {@code ask}; reading from the
     * peer pauses meanwhile, and the place is given back however the wait ends. {@code then} runs
     * on the connection's event loop with the answer or its failure (a null stage is a failure),
     * and {@code timedOut} when {@link ZmtpOptions#authenticationTimeout()} passes first; neither
     * runs once the connection has closed, only the first of them runs, and a wait that ends
     * without its answer cancels the stage. An exception from {@code ask} ends the wait and
     * propagates.
     *
     * @return false when the socket's bound of waiting handshakes is reached
     */
    <T> boolean await(Supplier<? extends CompletionStage<T>> ask, BiConsumer<? super T, ? super Throwable> then,
                      Runnable timedOut);

    /** The properties to announce to the peer (Socket-Type, Identity, Resource, X-...). */
    ZmtpMetadata localMetadata();

    /**
     * Decodes the peer's properties (from READY or INITIATE) within the connection's limits
     * (count, in linear time) and checks that we can talk to that peer (its Socket-Type pairs
     * with ours). A mechanism calls it before it answers with READY, so an incompatible or
     * malformed peer gets ERROR and no READY.
     *
     * @throws ZmtpProtocolException malformed metadata, too many properties, or a peer we cannot
     *         talk to (with an error reason for ZMTP ERROR)
     */
    default ZmtpMetadata decodePeerMetadata(ByteBuf data) throws ZmtpProtocolException {
        return ZmtpMetadata.decode(data);
    }

    /**
     * Sends a command frame and flushes it. The data's readable bytes are copied; the caller keeps
     * ownership of {@code data} (which may be null for a command with no data).
     */
    void sendCommand(String name, ByteBuf data);

    /** Sends our properties ({@link #localMetadata}) as the command {@code name} (READY, INITIATE). */
    default void sendMetadata(String name) {
        ZmtpMetadata local = localMetadata();
        ByteBuf data = alloc().buffer(local.encodedSize());
        try {
            local.encode(data);
            sendCommand(name, data);
        } finally {
            data.release();
        }
    }

    /**
     * The handshake succeeded.
     *
     * @param peerMetadata the peer's properties (from READY or INITIATE)
     * @param userId the authenticated user id, or null
     * @param cipher how data frames travel from now on, or null for plaintext framing
     */
    void complete(ZmtpMetadata peerMetadata, String userId, FrameCipher cipher);

    /**
     * The handshake failed: the connection closes and the reason is logged.
     *
     * @param reason why, for the log and the monitor (never include secret material)
     * @param errorReason if not null, sent to the peer in a ZMTP ERROR command first (a ZAP status
     *        code such as "400" for a refused credential)
     * @param authentication true when credentials were refused, so a client does not retry with
     *        the same credentials
     */
    void fail(String reason, String errorReason, boolean authentication);

    /** The handshake failed for {@code e}, as if a command had thrown it (ERROR when it carries a reason). */
    void fail(ZmtpProtocolException e);
}
