package io.zmtp.patterns.simplepirate;

import io.netty.buffer.Unpooled;
import io.zmtp.patterns.kit.Envelope;
import io.zmtp.socket.RoutingId;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.Consumer;

/**
 * The guide's Simple Pirate queue: a least-recently-used queue between Lazy Pirate clients and
 * {@link SimplePirateWorker}s, with no reliability of its own (the clients retry).
 *
 * <p>Clients connect to the frontend ROUTER, workers to the backend ROUTER; both sockets run on
 * one event loop, so the worker list needs no lock. A worker announces itself with READY
 * ({@code 01}); each request goes to the worker that has been ready longest, behind the worker's
 * address and an empty delimiter; the worker's reply goes back to the client and makes the worker
 * ready again. While no worker is ready the queue stops reading requests (they wait in the
 * clients' connections, as the guide's queue does by not polling its frontend). A ready worker
 * whose connection is gone is dropped when its turn comes. The routing is {@link LruQueue}'s.
 */
public final class SimplePirateQueue extends LruQueue {
    /** The READY signal a worker sends first. */
    public static final byte READY = 0x01;

    private static final Logger log = LoggerFactory.getLogger(SimplePirateQueue.class);

    public SimplePirateQueue(ZmtpContext context, Settings settings, Consumer<? super QueueEvent> listener) {
        super(context, settings, listener, log, "Simple Pirate queue");
    }

    @Override
    protected void onWorkerMessage(ZmtpMessage msg) {
        // From a REQ worker: [worker id, "", READY] or [worker id, "", client envelope..., "", reply...]
        RoutingId worker = RoutingId.of(msg.first());
        if (msg.size() < 3 || !msg.isFrameEmpty(1)) {
            report(() -> new QueueEvent.InvalidMessage(worker, Envelope.describe(msg, 1)));
            msg.release();
            return;
        }
        if (Envelope.isSignal(msg, 2, READY)) {
            msg.release();
            if (!isReady(worker)) {
                report(() -> new QueueEvent.WorkerReady(worker));
            }
            ready(worker);
        } else {
            msg.dropFirst().dropFirst();
            routeToClient(worker, msg);
            ready(worker);
        }
    }

    @Override
    protected void routeToWorker(RoutingId worker, ZmtpMessage request) {
        sendToWorker(request.addFirst(Unpooled.EMPTY_BUFFER).addFirst(worker.toFrame()));
    }

    /** Where a Simple Pirate queue binds (the guide: clients on tcp://*:5555, workers on tcp://*:5556). */
    public static final class Settings extends QueueSettings {
        private Settings(Builder b) {
            super(b);
        }

        public static Builder builder() {
            return new Builder();
        }

        public static final class Builder extends QueueSettings.Builder<Builder, Settings> {
            private Builder() {
            }

            @Override
            protected Builder self() {
                return this;
            }

            @Override
            public Settings build() {
                return new Settings(this);
            }
        }
    }
}
