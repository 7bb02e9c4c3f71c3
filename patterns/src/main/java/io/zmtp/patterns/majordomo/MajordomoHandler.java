package io.zmtp.patterns.majordomo;

import java.util.List;
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

    void handle(List<byte[]> request, ReplyStream replies) throws Exception;

    /** A handler that answers each request with one reply computed by {@code function}. */
    static MajordomoHandler replying(Function<List<byte[]>, List<byte[]>> function) {
        return (request, replies) -> replies.finish(function.apply(request));
    }

    /**
     * A handler whose reply comes later: the stage's value is the final reply, its failure is
     * {@link ReplyStream#fail}.
     */
    static MajordomoHandler async(Function<List<byte[]>, ? extends CompletionStage<List<byte[]>>> function) {
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
}
