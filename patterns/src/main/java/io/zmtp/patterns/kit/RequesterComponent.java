package io.zmtp.patterns.kit;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.FutureListener;
import io.zmtp.socket.SocketClosedException;
import io.zmtp.wire.ZmtpMessage;

import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The lifecycle of a client whose requests all go through one {@link RetryingRequester} (Lazy
 * Pirate, Binary Star, both Majordomo clients): {@link #start()} starts the requester (its first
 * socket connects), {@link #closeAsync()} closes it and fails what it holds.
 *
 * <p>And one case the requester cannot see: the client's event loop shut down under it (its
 * context closed before the client). The requester's timers and socket are gone with the loop,
 * and a request handed to it just before may never have reached it, so nothing would ever answer
 * those requests. The component therefore keeps the futures of its requests not yet answered and,
 * when the loop terminates, fails each with a {@link SocketClosedException}; a request submitted
 * after that fails at once. Keeping them costs an add and a remove on a concurrent set per
 * request (the caller's thread, then the thread that completes it).
 *
 * @param <R> the reply as the requester gives it
 */
public abstract class RequesterComponent<R> extends LoopComponent {
    private RetryingRequester<R> requester;
    /** The futures of requests not yet answered (any thread). */
    private final Set<CompletableFuture<R>> unanswered = ConcurrentHashMap.newKeySet();
    /** Fails every unanswered request when the loop terminates under the component. */
    private final FutureListener<Object> loopGone = f -> loopTerminated();
    private volatile boolean loopTerminated;

    protected RequesterComponent(EventLoop loop, PatternClock clock) {
        super(loop, clock);
    }

    /** The requester every request goes through: set once, from the subclass's constructor. */
    protected final void requester(RetryingRequester<R> requester) {
        if (this.requester != null) {
            throw new IllegalStateException("the requester is set already");
        }
        this.requester = Objects.requireNonNull(requester);
    }

    /** Opens the first socket and starts connecting (in the background). */
    @Override
    protected CompletionStage<Void> onStart() {
        eventLoop().terminationFuture().addListener(loopGone);
        return Futures.of(requester.start());
    }

    /** Closes the socket; the requests in flight or waiting fail. */
    @Override
    protected CompletionStage<Void> onClose() {
        eventLoop().terminationFuture().removeListener(loopGone);
        return Futures.of(requester.close());
    }

    /**
     * Hands a request (ownership passes) to the requester, keyed for the replies that name
     * {@code key} (null: any), its partial replies' values to {@code partials} (may be null) on the
     * loop. The future fails as {@link RetryingRequester#submit} says, and with a
     * {@link SocketClosedException} if the loop terminated under the component. Any thread.
     */
    protected final CompletableFuture<R> submit(ZmtpMessage request, Object key, Consumer<? super R> partials) {
        CompletableFuture<R> reply = requester.submit(request, key, partials);
        unanswered.add(reply);
        reply.whenComplete((r, e) -> unanswered.remove(reply));
        if (loopTerminated) { // the loop may have terminated while this request was being added
            reply.completeExceptionally(loopShutDown());
        }
        return reply;
    }

    /** Whether the component's event loop terminated before the component closed (any thread). */
    protected final boolean isLoopTerminated() {
        return loopTerminated;
    }

    /** The loop terminated before the component closed: every unanswered request fails. */
    private void loopTerminated() {
        loopTerminated = true;
        for (CompletableFuture<R> f : unanswered) {
            f.completeExceptionally(loopShutDown());
        }
    }

    private static SocketClosedException loopShutDown() {
        return new SocketClosedException("client closed: its event loop was shut down");
    }
}
