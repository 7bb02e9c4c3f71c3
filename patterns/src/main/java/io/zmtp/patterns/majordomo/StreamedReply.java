package io.zmtp.patterns.majordomo;

import io.zmtp.patterns.kit.RequestHandler;
import io.zmtp.wire.Frames;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Where a worker's handler answers one request, from any thread ({@link ReplyStream}): partial
 * replies go out as they come when the worker's version carries them (0.2, through the kit's
 * {@link RequestHandler.PartialReplies}), or are joined in front of the final reply (0.1, which
 * has none); the final reply, or a failure, completes {@link #done}. The joined frames are the one
 * state two threads may touch (the handler's partials, its final reply), so they are guarded by
 * this object; nothing on the worker's loop waits for it.
 */
final class StreamedReply implements ReplyStream {
    private static final Logger log = LoggerFactory.getLogger(StreamedReply.class);

    /** The final reply's body, or the handler's failure. */
    final CompletableFuture<ZmtpMessage> done = new CompletableFuture<>();
    private final MdpVersion version;
    private final String service;
    private final RequestHandler.PartialReplies partials;
    private final AtomicBoolean finished = new AtomicBoolean();
    /** The 0.1 partial replies, joined (guarded by this). */
    private Frames joined = Frames.empty();

    StreamedReply(MdpVersion version, String service, RequestHandler.PartialReplies partials) {
        this.version = version;
        this.service = service;
        this.partials = partials;
    }

    @Override
    public MdpVersion version() {
        return version;
    }

    @Override
    public void partial(Frames frames) {
        if (finished.get()) {
            throw new IllegalStateException("the final reply was already sent");
        }
        if (partials.supported()) {
            partials.send(MdpProtocol.body(frames));
            return;
        }
        synchronized (this) {
            for (byte[] f : frames) {
                joined = joined.add(f);
            }
        }
    }

    @Override
    public void finish(Frames frames) {
        if (!finished.compareAndSet(false, true)) {
            throw new IllegalStateException("the final reply was already sent");
        }
        Frames all;
        synchronized (this) {
            all = joined;
        }
        if (all.isEmpty()) {
            all = frames;
        } else {
            for (byte[] f : frames) {
                all = all.add(f);
            }
        }
        done.complete(MdpProtocol.body(all));
    }

    @Override
    public void fail(Throwable cause) {
        if (!finished.compareAndSet(false, true)) {
            log.warn("worker {}: the handler failed after its final reply", service, cause);
            return;
        }
        done.completeExceptionally(cause);
    }
}
