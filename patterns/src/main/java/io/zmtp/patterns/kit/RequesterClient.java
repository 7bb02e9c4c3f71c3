package io.zmtp.patterns.kit;

import io.netty.channel.EventLoop;
import io.zmtp.socket.SocketClosedException;
import io.zmtp.wire.ZmtpMessage;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A client component whose requests all go through one {@link RetryingRequester} (the Lazy
 * Pirate client, the Binary Star client): its lifecycle is the requester's, and it offers the
 * same three calls, asynchronous, blocking, and blocking over strings.
 */
public abstract class RequesterClient extends LoopComponent {
    private RetryingRequester<ZmtpMessage> requester;

    protected RequesterClient(EventLoop loop, PatternClock clock) {
        super(loop, clock);
    }

    /** The requester every request goes through: set once, from the subclass's constructor. */
    protected final void requester(RetryingRequester<ZmtpMessage> requester) {
        if (this.requester != null) {
            throw new IllegalStateException("the requester is set already");
        }
        this.requester = Objects.requireNonNull(requester);
    }

    /** Opens the first socket and starts connecting (in the background). */
    @Override
    protected CompletionStage<Void> onStart() {
        return Futures.of(requester.start());
    }

    @Override
    protected CompletionStage<Void> onClose() {
        return Futures.of(requester.close());
    }

    /**
     * Queues a request (ownership passes to the client) and returns its reply's future. The
     * future completes with the reply, which the caller then owns and must release, or fails
     * with {@link NoReplyException} after the last try, or with {@link SocketClosedException}
     * if the client closes first. Cancelling the future abandons the request. Stages that depend
     * on the future run on the client's event loop unless added with an async method; they must
     * not block.
     */
    public CompletableFuture<ZmtpMessage> requestAsync(ZmtpMessage request) {
        return requester.submit(request);
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
