package io.zmtp.socket;

import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * REP: one request at a time. A request's envelope (every frame up to and including the first
 * empty delimiter, so a chain of DEALERs and ROUTERs in front is fine) is saved and the body
 * delivered; the reply goes back to the same peer with the envelope restored. Requests that
 * arrive while one is being answered wait, in order, until the reply is sent.
 *
 * <p>The application may send only a reply to the request it took ({@link #sendRefusal}); any
 * other send fails with {@link SocketStateException}, through the reactor API and a
 * {@link BlockingSocket} alike.
 */
public final class RepSocket extends ZmtpSocket {
    private static final Logger log = LoggerFactory.getLogger(RepSocket.class);

    /** A request that arrived while another was being answered, and the peer it came from. */
    private record WaitingRequest(Pipe pipe, ZmtpMessage msg) {
    }

    private final ArrayDeque<WaitingRequest> waiting = new ArrayDeque<>();
    private Pipe replyPipe;
    private ZmtpMessage envelope;
    private boolean answering;
    private boolean nextScheduled;
    /** Application state (its thread): it took a request and has not sent the reply. */
    private boolean requestTaken;

    RepSocket(Setup setup) {
        super(setup, SocketType.REP);
    }

    @Override
    SendResult route(ZmtpMessage reply) {
        if (!answering) {
            throw new IllegalStateException("REP can only send a reply to the request it received");
        }
        Pipe p = replyPipe;
        ZmtpMessage env = envelope;
        answering = false;
        replyPipe = null;
        envelope = null;
        scheduleNext();
        if (p == null || !p.attached || !p.hasRoom()) {
            if (p == null || !p.attached) {
                counters().unroutableDrop();
            } else {
                counters().hwmDrop();
            }
            env.release();
            reply.release();
            return SendResult.DROPPED;
        }
        p.write(reply.prepend(env));
        return SendResult.SENT;
    }

    @Override
    String sendRefusal() {
        return requestTaken ? null : "REP can only send a reply to the request it received";
    }

    @Override
    void sendAccepted() {
        requestTaken = false;
    }

    @Override
    void sendAbandoned() {
        requestTaken = true;
    }

    @Override
    void messageTaken() {
        requestTaken = true;
    }

    @Override
    boolean pipeAttached(Pipe pipe) {
        receiveFrom(pipe);
        return true;
    }

    @Override
    void pipeDetached(Pipe pipe) {
        stopReceivingFrom(pipe);
        if (pipe == replyPipe) {
            replyPipe = null;
        }
        for (Iterator<WaitingRequest> it = waiting.iterator(); it.hasNext(); ) {
            WaitingRequest w = it.next();
            if (w.pipe() == pipe) {
                w.msg().release();
                it.remove();
            }
        }
    }

    @Override
    void received(Pipe pipe, ZmtpMessage msg) {
        if (answering || !waiting.isEmpty()) {
            waiting.add(new WaitingRequest(pipe, msg));
            if (waiting.size() >= receiveLimit()) {
                pauseReading(ReadPause.TYPE_QUEUE);
            }
            return;
        }
        accept(pipe, msg);
    }

    private void accept(Pipe pipe, ZmtpMessage msg) {
        int delimiter = -1;
        for (int i = 0; i < msg.size(); i++) {
            if (msg.isFrameEmpty(i)) {
                delimiter = i;
                break;
            }
        }
        if (delimiter < 0 || delimiter == msg.size() - 1) {
            log.debug("{} discarding a request without an envelope delimiter or body", this);
            msg.release();
            return;
        }
        envelope = msg.takeFirst(delimiter + 1);
        replyPipe = pipe;
        answering = true;
        deliver(msg);
    }

    private void scheduleNext() {
        if (!nextScheduled && !waiting.isEmpty()) {
            nextScheduled = true;
            eventLoop().execute(this::next);
        }
    }

    private void next() {
        nextScheduled = false;
        WaitingRequest w;
        while (!answering && !isClosing() && (w = waiting.poll()) != null) {
            accept(w.pipe(), w.msg());
        }
        if (waiting.isEmpty()) {
            resumeReading(ReadPause.TYPE_QUEUE);
        }
    }

    @Override
    void beforeClose() {
        WaitingRequest w;
        while ((w = waiting.poll()) != null) {
            w.msg().release();
        }
        if (envelope != null) {
            envelope.release();
            envelope = null;
        }
    }
}
