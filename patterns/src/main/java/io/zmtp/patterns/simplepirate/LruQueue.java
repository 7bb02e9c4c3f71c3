package io.zmtp.patterns.simplepirate;

import io.zmtp.patterns.kit.Envelope;
import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.kit.LoopComponent;
import io.zmtp.socket.RouterSocket;
import io.zmtp.socket.RoutingId;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * What the guide's least-recently-used queues (Simple and Paranoid Pirate) share: a frontend
 * ROUTER for clients and a backend ROUTER for workers on one event loop, requests handed to the
 * worker ready longest by an {@link LruDispatcher}, replies back to their clients. A subclass
 * reads its workers' messages (what makes a worker ready, alive or gone) and frames requests
 * for them.
 */
public abstract class LruQueue extends LoopComponent {
    private final QueueSettings settings;
    private final EventReporter<QueueEvent> events;
    private final RouterSocket frontend;
    private final RouterSocket backend;
    private final LruDispatcher<RoutingId> dispatcher;
    private volatile String frontendEndpoint;
    private volatile String backendEndpoint;

    protected LruQueue(ZmtpContext context, QueueSettings settings, Consumer<? super QueueEvent> listener,
            Logger log, String name) {
        super(context.group().next(), settings.clock());
        this.settings = Objects.requireNonNull(settings);
        this.events = new EventReporter<>(listener, log, name);
        this.frontend = (RouterSocket) context.socket(SocketType.ROUTER, settings.frontendOptions, eventLoop());
        this.backend = (RouterSocket) context.socket(SocketType.ROUTER, settings.backendOptions, eventLoop());
        this.dispatcher = new LruDispatcher<>(frontend, new LruDispatcher.Route<>() {
            @Override
            public boolean connected(RoutingId worker) {
                return backend.hasPeer(worker);
            }

            @Override
            public void gone(RoutingId worker) {
                workerGone(worker);
                report(() -> new QueueEvent.WorkerGone(worker));
            }

            @Override
            public void send(RoutingId worker, ZmtpMessage request) {
                if (settings.traceMessages()) {
                    report(() -> new QueueEvent.RequestRouted(worker, Envelope.describe(request)));
                }
                routeToWorker(worker, request);
            }
        });
    }

    @Override
    protected final CompletionStage<Void> onStart() {
        dispatcher.start(); // no worker yet: requests wait
        frontend.onMessage(this::onRequest);
        backend.onMessage(msg -> {
            if (isClosing()) {
                msg.release();
            } else {
                onWorkerMessage(msg);
            }
        });
        return Futures.of(frontend.bind(settings.frontend)).thenCompose(f -> {
            frontendEndpoint = f;
            return Futures.of(backend.bind(settings.backend));
        }).thenAccept(b -> {
            backendEndpoint = b;
            inLoop(() -> {
                if (!isClosing()) {
                    started();
                    String detail = "clients on " + frontendEndpoint + ", workers on " + backendEndpoint + describe();
                    report(() -> new QueueEvent.Listening(detail));
                }
            });
        });
    }

    @Override
    protected final CompletionStage<Void> onClose() {
        stopping();
        dispatcher.close();
        return Futures.of(frontend.close(settings.linger)).thenCombine(Futures.of(backend.close(settings.linger)),
                (a, b) -> null);
    }

    /** The frontend endpoint bound (for clients), with the port chosen for port 0; null before start. */
    public final String frontendEndpoint() {
        return frontendEndpoint;
    }

    /** The backend endpoint bound (for workers). */
    public final String backendEndpoint() {
        return backendEndpoint;
    }

    /** The number of workers ready for a request (for tests and monitoring). */
    public final CompletableFuture<Integer> readyWorkers() {
        CompletableFuture<Integer> f = new CompletableFuture<>();
        inLoop(() -> f.complete(dispatcher.readyCount()));
        return f;
    }

    private void onRequest(ZmtpMessage msg) {
        // From a client, after the frontend ROUTER: [client id, envelope..., "", body...]
        if (isClosing()) {
            msg.release();
            return;
        }
        dispatcher.request(msg);
    }

    /** A reply from a worker, its worker frame(s) removed: back to its client. */
    protected final void routeToClient(RoutingId worker, ZmtpMessage reply) {
        if (settings.traceMessages()) {
            report(() -> new QueueEvent.ReplyRouted(worker, Envelope.describe(reply)));
        }
        frontend.send(reply);
    }

    /** The worker is ready for a request; true if it was not already. */
    protected final boolean ready(RoutingId worker) {
        return dispatcher.ready(worker, worker);
    }

    /** The worker gets no more requests (gone or expired); true if it was ready. */
    protected final boolean notReady(RoutingId worker) {
        return dispatcher.remove(worker);
    }

    /** The number of ready workers (on the loop). */
    protected final int readyCount() {
        return dispatcher.readyCount();
    }

    protected final boolean isReady(RoutingId worker) {
        return dispatcher.isReady(worker);
    }

    /** Sends on the backend (a message that begins with the worker's frame); false if it cannot go now. */
    protected final boolean trySendToWorker(ZmtpMessage msg) {
        return backend.trySend(msg);
    }

    /** Sends on the backend (a message that begins with the worker's frame). */
    protected final void sendToWorker(ZmtpMessage msg) {
        backend.send(msg);
    }

    protected final void report(java.util.function.Supplier<? extends QueueEvent> event) {
        events.report(event);
    }

    /** A message from a worker on the backend: [worker id, ...]. Ownership passes. */
    protected abstract void onWorkerMessage(ZmtpMessage msg);

    /** Frames {@code request} ([client id, envelope..., "", body...]) for {@code worker} and sends it. */
    protected abstract void routeToWorker(RoutingId worker, ZmtpMessage request);

    /** A ready worker's connection was gone when its turn came. */
    protected void workerGone(RoutingId worker) {
    }

    /** Both sockets are bound: start timers. */
    protected void started() {
    }

    /** Closing: stop timers, forget workers. */
    protected void stopping() {
    }

    /** What the Listening event adds after the endpoints (", heartbeat every ..."). */
    protected String describe() {
        return "";
    }
}
