package io.zmtp.patterns.majordomo;

import io.zmtp.patterns.kit.RequestHandler;
import io.zmtp.wire.Frames;
import io.zmtp.wire.ZmtpMessage;

import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * A worker's {@link MajordomoHandler} as the kit's {@link RequestHandler}, run on the worker's
 * executor: each request's body goes to the handler there, which answers through a
 * {@link StreamedReply} from any thread; the stage the worker's loop waits on is that reply. So a
 * handler that blocks never stops the loop (its heartbeats), and one that throws, or whose
 * executor refuses it, fails the request.
 */
final class ExecutorHandler implements RequestHandler {
    private final MajordomoHandler handler;
    /** The worker's executor, known once the worker starts. */
    private final Supplier<Executor> executor;
    private final MdpVersion version;
    private final String service;

    ExecutorHandler(MajordomoHandler handler, Supplier<Executor> executor, MdpVersion version, String service) {
        this.handler = Objects.requireNonNull(handler);
        this.executor = executor;
        this.version = version;
        this.service = service;
    }

    @Override
    public CompletionStage<ZmtpMessage> handle(ZmtpMessage request) {
        return handle(request, PartialReplies.NONE);
    }

    @Override
    public CompletionStage<ZmtpMessage> handle(ZmtpMessage request, PartialReplies partials) {
        Frames body = Frames.takeFrom(request);
        StreamedReply reply = new StreamedReply(version, service, partials);
        try {
            executor.get().execute(() -> {
                try {
                    handler.handle(body, reply);
                } catch (Throwable t) {
                    reply.fail(t);
                }
            });
        } catch (RejectedExecutionException e) {
            reply.fail(e);
        }
        return reply.done;
    }
}
