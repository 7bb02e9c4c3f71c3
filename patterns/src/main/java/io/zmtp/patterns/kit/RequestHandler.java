package io.zmtp.patterns.kit;

import io.netty.util.ReferenceCountUtil;
import io.zmtp.wire.ZmtpMessage;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * A worker's user code: from a request body to a reply body (the worker keeps the envelope).
 *
 * <p>{@link #handle} is called on the worker's event loop and must not block it: the loop also
 * sends the worker's heartbeats. Code that blocks belongs on an executor: wrap it with
 * {@link #blocking(Function, Executor)}. The handler owns the request (it releases it, or returns
 * it as the reply); the reply's ownership passes to the worker. A stage that completes
 * exceptionally sends no reply (the client retries).
 */
@FunctionalInterface
public interface RequestHandler {

    CompletionStage<ZmtpMessage> handle(ZmtpMessage request);

    /**
     * The extension point for workers that can stream partial replies before the final one
     * (Majordomo 0.2): such a worker calls this method with a {@link PartialReplies} of its
     * own; every other worker calls {@link #handle(ZmtpMessage)}. A handler that streams
     * overrides this method; by default it ignores {@code partials}.
     */
    default CompletionStage<ZmtpMessage> handle(ZmtpMessage request, PartialReplies partials) {
        return handle(request);
    }

    /** Where a handler sends partial replies (from any thread), before its stage completes. */
    interface PartialReplies {
        /** A worker whose protocol has no partial replies: {@link #send} fails. */
        PartialReplies NONE = new PartialReplies() {
            @Override
            public boolean supported() {
                return false;
            }

            @Override
            public void send(ZmtpMessage partial) {
                partial.release();
                throw new UnsupportedOperationException("this worker's protocol has no partial replies");
            }
        };

        /** Whether the worker's protocol carries partial replies. */
        boolean supported();

        /** Sends one partial reply (ownership passes). */
        void send(ZmtpMessage partial);
    }

    /** Sends every request back unchanged (the guide's workers). */
    static RequestHandler echo() {
        return CompletableFuture::completedFuture;
    }

    /** User code that answers later, without blocking (a reply from another service, say). */
    static RequestHandler async(Function<ZmtpMessage, ? extends CompletionStage<ZmtpMessage>> code) {
        Objects.requireNonNull(code);
        return code::apply;
    }

    /**
     * User code that may block, run on {@code executor} so the worker's event loop keeps
     * heartbeating meanwhile. If the code throws, the request is released (unless it already
     * was) and no reply is sent.
     */
    static RequestHandler blocking(Function<ZmtpMessage, ZmtpMessage> code, Executor executor) {
        Objects.requireNonNull(code);
        Objects.requireNonNull(executor);
        return request -> {
            try {
                return CompletableFuture.supplyAsync(() -> {
                    try {
                        return code.apply(request);
                    } catch (RuntimeException | Error e) {
                        if (request.refCnt() > 0) {
                            ReferenceCountUtil.safeRelease(request);
                        }
                        throw e;
                    }
                }, executor);
            } catch (RuntimeException rejected) {
                request.release();
                return CompletableFuture.failedFuture(rejected);
            }
        };
    }
}
