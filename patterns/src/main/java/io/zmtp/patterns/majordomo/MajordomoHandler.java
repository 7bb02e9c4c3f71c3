package io.zmtp.patterns.majordomo;

import io.zmtp.patterns.kit.RequestHandler;
import io.zmtp.wire.Frames;
import io.zmtp.wire.ZmtpMessage;

import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * A worker's service code: called once per request with the request's body frames, it answers
 * through the {@link ReplyStream} (partial replies, then a final one), now or later. It runs on
 * the worker's executor, never on its event loop unless the executor is {@code Runnable::run}
 * (only for code that never blocks). Throwing is the same as {@link ReplyStream#fail}.
 */
@FunctionalInterface
public interface MajordomoHandler {

    void handle(Frames request, ReplyStream replies) throws Exception;

    /** A handler that answers each request with one reply computed by {@code function}. */
    static MajordomoHandler replying(Function<Frames, Frames> function) {
        return (request, replies) -> replies.finish(function.apply(request));
    }

    /**
     * A handler whose reply comes later: the stage's value is the final reply, its failure is
     * {@link ReplyStream#fail}.
     */
    static MajordomoHandler async(Function<Frames, ? extends CompletionStage<Frames>> function) {
        return (request, replies) -> function.apply(request).whenComplete((reply, error) -> {
            if (error != null) {
                replies.fail(error);
            } else {
                replies.finish(reply);
            }
        });
    }

    /** The echo service of the guide's mdworker: the reply is the request. */
    static MajordomoHandler echo() {
        return (request, replies) -> replies.finish(request);
    }

    /**
     * The patterns' common worker handler ({@link RequestHandler}, the one every worker of the
     * package family takes) as a Majordomo handler. The request is the body frames as a
     * {@link ZmtpMessage}; the stage's message is the final reply. MDP/0.2 partial replies are the
     * {@link RequestHandler.PartialReplies} extension: the worker calls
     * {@link RequestHandler#handle(ZmtpMessage, RequestHandler.PartialReplies)}, whose
     * {@code supported()} is true under 0.2; under 0.1 partials sent anyway are joined into the
     * one REPLY, as for a {@link ReplyStream}. A failed stage (or a throw) is
     * {@link ReplyStream#fail}.
     */
    static MajordomoHandler of(RequestHandler handler) {
        Objects.requireNonNull(handler);
        return (request, replies) -> {
            ZmtpMessage msg = request.toMessage();
            RequestHandler.PartialReplies partials = new RequestHandler.PartialReplies() {
                @Override
                public boolean supported() {
                    return replies.version().streamsPartials();
                }

                @Override
                public void send(ZmtpMessage partial) {
                    replies.partial(Frames.takeFrom(partial));
                }
            };
            java.util.concurrent.CompletionStage<ZmtpMessage> stage;
            try {
                stage = handler.handle(msg, partials);
            } catch (RuntimeException e) {
                if (msg.refCnt() > 0) {
                    msg.release();
                }
                throw e;
            }
            stage.whenComplete((reply, error) -> {
                if (error != null) {
                    replies.fail(error);
                    return;
                }
                replies.finish(Frames.takeFrom(reply));
            });
        };
    }
}
