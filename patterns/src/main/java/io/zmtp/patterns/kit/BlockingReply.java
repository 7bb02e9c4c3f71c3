package io.zmtp.patterns.kit;

import io.zmtp.socket.LookBeforePark;
import io.zmtp.wire.ZmtpMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;

/**
 * The blocking facade of every client component: a user thread sends a request through the
 * component's asynchronous call and waits for the reply, looking briefly before it parks
 * ({@link LookBeforePark}). Called on the component's own loop it would deadlock, so it refuses;
 * interrupted, it abandons the request and releases a reply that came anyway.
 */
public final class BlockingReply {
    private BlockingReply() {
    }

    /**
     * Sends {@code request} (ownership passes) with {@code async} and waits for the reply, which
     * the caller then owns; failures of the future are thrown as they are (unchecked).
     *
     * @throws IllegalStateException on the component's event loop, or when interrupted
     */
    public static ZmtpMessage request(LoopComponent client, ZmtpMessage request,
            Function<ZmtpMessage, CompletableFuture<ZmtpMessage>> async) {
        if (client.eventLoop().inEventLoop()) {
            request.release();
            throw new IllegalStateException("a blocking request on the client's event loop would deadlock;"
                    + " use requestAsync");
        }
        CompletableFuture<ZmtpMessage> f = async.apply(request);
        LookBeforePark.look(f); // a reply over loopback usually comes before a park would pay off
        try {
            return f.get();
        } catch (InterruptedException e) {
            if (!f.cancel(false)) {
                ZmtpMessage late = f.getNow(null);
                if (late != null) {
                    late.release();
                }
            }
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a reply", e);
        } catch (ExecutionException e) {
            throw Futures.unchecked(e.getCause());
        }
    }

    /** The reply's frames as UTF-8 strings; the reply is released. */
    public static List<String> strings(ZmtpMessage reply) {
        try {
            List<String> l = new ArrayList<>(reply.size());
            for (int i = 0; i < reply.size(); i++) {
                l.add(reply.frameString(i));
            }
            return l;
        } finally {
            reply.release();
        }
    }
}
