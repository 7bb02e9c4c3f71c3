package io.zmtp.patterns.freelance;

import io.zmtp.patterns.Futures;
import io.zmtp.patterns.LoopComponent;
import io.zmtp.socket.LookBeforePark;
import io.zmtp.wire.ZmtpMessage;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/** The blocking facade of the Freelance clients: waits for a reply's future on a user thread. */
final class Blocking {
    private Blocking() {
    }

    static ZmtpMessage await(LoopComponent client, CompletableFuture<ZmtpMessage> f) {
        if (client.eventLoop().inEventLoop()) {
            f.cancel(false);
            throw new IllegalStateException("a blocking request on the client's event loop would deadlock;"
                    + " use requestAsync");
        }
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
}
