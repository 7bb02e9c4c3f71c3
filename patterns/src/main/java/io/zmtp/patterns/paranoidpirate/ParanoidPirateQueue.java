package io.zmtp.patterns.paranoidpirate;

import io.zmtp.patterns.kit.Envelope;
import io.zmtp.patterns.simplepirate.LruQueue;
import io.zmtp.patterns.simplepirate.QueueEvent;
import io.zmtp.patterns.simplepirate.QueueSettings;
import io.zmtp.patterns.kit.Heartbeat;
import io.zmtp.patterns.kit.PeerLiveness;
import io.zmtp.socket.RoutingId;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The guide's Paranoid Pirate queue (6/PPP): a least-recently-used queue that knows which of
 * its workers are alive.
 *
 * <p>Clients (Lazy Pirate) connect to the frontend ROUTER, {@link ParanoidPirateWorker}s (DEALER)
 * to the backend ROUTER; both run on one event loop with the queue's timer, so nothing is locked.
 * Each request goes to the worker that has been ready longest, behind its address
 * ({@link LruQueue}); the worker's reply goes back to the client and makes it ready again. The
 * workers' liveness is the kit's {@link PeerLiveness}: every heartbeat interval the queue forgets
 * the workers it has not heard from for liveness x interval (in bounded batches), then sends
 * HEARTBEAT to each worker it knows (busy ones too: their user code may take longer than the
 * heartbeat); a request a forgotten worker held is lost, and its client retries.
 *
 * <p>Anything a worker sends counts as a sign of life. As the guide's queue, it also takes a
 * HEARTBEAT or a reply from a worker it does not know (after the queue restarted, say) as that
 * worker being ready. A known worker that is not ready is busy. A heartbeat tick that runs late
 * because the queue's own loop stalled expires nobody: what the workers sent meanwhile is read
 * first.
 */
public final class ParanoidPirateQueue extends LruQueue {
    private static final Logger log = LoggerFactory.getLogger(ParanoidPirateQueue.class);

    private final Settings settings;

    // On the event loop.
    private final PeerLiveness<RoutingId> alive;

    public ParanoidPirateQueue(ZmtpContext context, Settings settings, Consumer<? super QueueEvent> listener) {
        super(context, settings, listener, log, "Paranoid Pirate queue");
        this.settings = settings;
        this.alive = new PeerLiveness<>(clock(), settings.heartbeat.interval(), settings.heartbeat.expiry(),
                settings.expiryBatch, new PeerLiveness.Owner<>() {
                    @Override
                    public void beat(boolean counted) {
                        heartbeatAll();
                    }

                    @Override
                    public void expired(RoutingId id) {
                        boolean busy = !notReady(id);
                        report(() -> new QueueEvent.WorkerExpired(id, busy));
                    }
                });
    }

    public Settings settings() {
        return settings;
    }

    /** The number of workers ready for a request and the number known (alive), for tests and monitoring. */
    public CompletableFuture<int[]> workerCounts() {
        CompletableFuture<int[]> f = new CompletableFuture<>();
        inLoop(() -> f.complete(new int[] {readyCount(), alive.size()}));
        return f;
    }

    private boolean traceMessages() {
        return settings.traceMessages();
    }

    @Override
    protected void started() {
        alive.start();
    }

    @Override
    protected void stopping() {
        alive.stop();
        alive.clear();
    }

    @Override
    protected String describe() {
        return ", " + settings.heartbeat;
    }

    @Override
    protected void onWorkerMessage(ZmtpMessage msg) {
        // [worker id, READY] | [worker id, HEARTBEAT] | [worker id, client envelope..., "", reply...]
        RoutingId id = RoutingId.of(msg.first());
        boolean signal = msg.size() == 2;
        boolean readySignal = signal && Envelope.isSignal(msg, 1, Ppp.READY);
        boolean valid = signal ? readySignal || Envelope.isSignal(msg, 1, Ppp.HEARTBEAT) : isReply(msg);
        if (!valid) {
            report(() -> new QueueEvent.InvalidMessage(id, Envelope.describe(msg, 1)));
            msg.release();
            return;
        }
        boolean wasBusy = alive.contains(id) && !isReady(id);
        boolean isNew = alive.heard(id); // also moves it to the end: the most recently heard
        if (readySignal) {
            msg.release();
            if (wasBusy) {
                report(() -> new QueueEvent.RequestAbandoned(id));
            }
            if (!isReady(id)) {
                report(() -> new QueueEvent.WorkerReady(id));
            }
            ready(id);
        } else if (signal) {
            msg.release();
            if (traceMessages()) {
                report(() -> new QueueEvent.WorkerHeartbeat(id));
            }
            if (isNew) {
                report(() -> new QueueEvent.WorkerAdopted(id));
                ready(id);
            }
        } else {
            msg.dropFirst();
            routeToClient(id, msg);
            if (isNew) {
                report(() -> new QueueEvent.WorkerAdopted(id));
            }
            ready(id);
        }
    }

    /** [worker id, client address..., "", body...]: at least one address frame, a delimiter, a body. */
    private static boolean isReply(ZmtpMessage msg) {
        int d = Envelope.delimiter(msg);
        return d >= 2 && d < msg.size() - 1;
    }

    @Override
    protected void routeToWorker(RoutingId worker, ZmtpMessage request) {
        sendToWorker(request.addFirst(worker.toFrame()));
    }

    @Override
    protected void workerGone(RoutingId worker) {
        alive.remove(worker);
    }

    private void heartbeatAll() {
        if (isClosing()) {
            return;
        }
        for (RoutingId w : alive.peers()) {
            ZmtpMessage hb = Ppp.signal(Ppp.HEARTBEAT).addFirst(w.toFrame());
            if (!trySendToWorker(hb)) {
                hb.release();
            }
        }
    }

    /**
     * What a Paranoid Pirate queue needs: where to bind (the guide: clients on tcp://*:5555,
     * workers on tcp://*:5556) and the heartbeat its workers use.
     */
    public static final class Settings extends QueueSettings {
        final Heartbeat heartbeat;
        final int expiryBatch;

        private Settings(Builder b) {
            super(b);
            heartbeat = b.heartbeat;
            expiryBatch = b.expiryBatch;
        }

        public static Builder builder() {
            return new Builder();
        }

        public Heartbeat heartbeat() {
            return heartbeat;
        }

        public static final class Builder extends QueueSettings.Builder<Builder, Settings> {
            private Heartbeat heartbeat = Heartbeat.DEFAULT;
            private int expiryBatch = PeerLiveness.DEFAULT_BATCH;

            private Builder() {
            }

            @Override
            protected Builder self() {
                return this;
            }

            /** The heartbeat interval and liveness (the guide's: 1 s, 3). */
            public Builder heartbeat(Heartbeat heartbeat) {
                this.heartbeat = Objects.requireNonNull(heartbeat);
                return this;
            }

            /**
             * How many silent workers one turn of the loop expires (256 by default); more wait for
             * the next turn, so a mass expiry does not hold up routing.
             */
            public Builder expiryBatch(int n) {
                if (n < 1) {
                    throw new IllegalArgumentException("expiryBatch must be at least 1");
                }
                this.expiryBatch = n;
                return this;
            }

            @Override
            public Settings build() {
                return new Settings(this);
            }
        }
    }
}
