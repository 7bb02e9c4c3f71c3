package io.zmtp.socket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * REQ: strict send/receive alternation. A request goes to the next peer with room, behind an
 * empty delimiter frame; only a reply from that peer, behind a delimiter, is accepted (the
 * delimiter is stripped); anything else is discarded.
 *
 * <p>{@link SocketOptions.Builder#reqRelaxed relaxed} allows a new request before the last
 * reply; {@link SocketOptions.Builder#reqCorrelate correlate} puts a 4-byte request id before
 * the delimiter and accepts only the reply carrying the current id (as ZMQ_REQ_RELAXED and
 * ZMQ_REQ_CORRELATE).
 *
 * <p>The alternation is checked where the application sends ({@link #sendRefusal}): a second
 * request before the application took the reply to the first fails with
 * {@link SocketStateException}, through the reactor API and a {@link BlockingSocket} alike.
 */
public final class ReqSocket extends ZmtpSocket {
    private static final Logger log = LoggerFactory.getLogger(ReqSocket.class);

    private final LoadBalancer out = new LoadBalancer();
    /** Routing state (event loop): a request went out and its reply has not been accepted. */
    private boolean expectingReply;
    /** Application state (its thread): a request was sent and its reply not taken yet. */
    private boolean awaitingReply;
    private Pipe replyPipe;
    private int requestId = java.util.concurrent.ThreadLocalRandom.current().nextInt();

    ReqSocket(Setup setup) {
        super(setup, SocketType.REQ);
    }

    @Override
    SendResult route(ZmtpMessage msg) {
        Pipe p = out.select();
        if (p == null) {
            return SendResult.WOULD_BLOCK;
        }
        msg.addFirst(Unpooled.EMPTY_BUFFER);
        if (options().reqCorrelate()) {
            requestId++;
            msg.addFirst(Unpooled.buffer(4).writeInt(requestId));
        }
        p.write(msg);
        expectingReply = true;
        replyPipe = p;
        return SendResult.SENT;
    }

    @Override
    String sendRefusal() {
        return awaitingReply && !options().reqRelaxed()
                ? "REQ cannot send again before it received the reply to its last request" : null;
    }

    @Override
    void sendAccepted() {
        awaitingReply = true;
    }

    @Override
    void sendAbandoned() {
        awaitingReply = false;
    }

    @Override
    void messageTaken() {
        awaitingReply = false;
    }

    @Override
    boolean pipeAttached(Pipe pipe) {
        out.attach(pipe);
        receiveFrom(pipe);
        probeRouter(pipe);
        return true;
    }

    @Override
    void pipeDetached(Pipe pipe) {
        out.detach(pipe);
        stopReceivingFrom(pipe);
        if (pipe == replyPipe) {
            // As in libzmq: the reply can no longer come; a strict REQ stays waiting for it.
            replyPipe = null;
        }
    }

    @Override
    void received(Pipe pipe, ZmtpMessage msg) {
        if (!expectingReply || pipe != replyPipe) {
            log.debug("{} discarding a message that is not the reply awaited", this);
            msg.release();
            return;
        }
        if (options().reqCorrelate()) {
            ByteBuf id = msg.first();
            if (msg.size() < 2 || id.readableBytes() != 4 || id.getInt(id.readerIndex()) != requestId) {
                msg.release();
                return;
            }
            msg.dropFirst();
        }
        if (msg.size() < 2 || msg.isFrameEmpty(0) == false) {
            log.debug("{} discarding a reply without an empty delimiter", this);
            msg.release();
            return;
        }
        msg.dropFirst();
        expectingReply = false;
        replyPipe = null;
        deliver(msg);
    }

    /** Whether a request was sent and its reply has not come yet. Call on the event loop. */
    public boolean isAwaitingReply() {
        return expectingReply;
    }
}
