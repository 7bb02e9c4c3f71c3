package io.zmtp.patterns.kit;

import io.netty.channel.EventLoop;
import io.zmtp.socket.SocketClosedException;
import io.zmtp.wire.ZmtpMessage;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A client component whose requests all go through one {@link RetryingRequester} and are
 * messages (the Lazy Pirate client, the Binary Star client): the requester's lifecycle
 * ({@link RequesterComponent}), and the same three calls, asynchronous, blocking, and blocking
 * over strings.
 */
public abstract class RequesterClient extends RequesterComponent<ZmtpMessage> {

    protected RequesterClient(EventLoop loop, PatternClock clock) {
        super(loop, clock);
    }

    /**
     * Queues a request (ownership passes to the client) and returns its reply's future. The
     * future completes with the reply, which the caller then owns and must release, or fails
     * with {@link NoReplyException} after the last try, or with {@link SocketClosedException}
     * if the client closes first (or its event loop was shut down). Cancelling the future
     * abandons the request. Stages that depend on the future run on the client's event loop
     * unless added with an async method; they must not block.
     */
    public CompletableFuture<ZmtpMessage> requestAsync(ZmtpMessage request) {
        return submit(request, null, null);
    }

    /**
     * Sends a request and waits for its reply (the caller owns it and must release it), after
     * the requests queued before it, with the client's timeout per try and its tries.
     *
     * @throws NoReplyException when the last try got no reply
     * @throws IllegalStateException when called on the client's event loop, which would deadlock
     */
    public ZmtpMessage request(ZmtpMessage request) {
        return BlockingReply.request(this, request, this::requestAsync);
    }

    /** Sends a request of UTF-8 frames and waits for the reply, as strings. */
    public List<String> request(String... frames) {
        return BlockingReply.strings(request(ZmtpMessage.ofStrings(frames)));
    }
}
