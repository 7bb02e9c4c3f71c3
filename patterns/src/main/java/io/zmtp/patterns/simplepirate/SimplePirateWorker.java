package io.zmtp.patterns.simplepirate;

import io.zmtp.patterns.kit.Envelope;
import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.kit.LoopComponent;
import io.zmtp.patterns.kit.ReconnectStoppedException;
import io.zmtp.patterns.kit.RequestHandler;
import io.zmtp.patterns.kit.WorkerCore;
import io.zmtp.patterns.kit.WorkerEvent;
import io.zmtp.patterns.kit.WorkerSettings;
import io.zmtp.socket.SocketEvent;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * The guide's Simple Pirate worker: a REQ socket connected to a {@link SimplePirateQueue}'s
 * backend. It sends READY ({@code 01}) once, then answers each request it is given: the
 * envelope (up to the empty delimiter) is kept, the body goes to the {@link RequestHandler}, and
 * the reply goes back behind the envelope ({@link WorkerCore}). A request it cannot answer (no
 * envelope, or the handler failed) is answered with READY again, which tells the queue it is
 * free; the client retries.
 *
 * <p>The guide's Simple Pirate worker does not notice that its queue restarted (the new queue
 * never heard its READY), and stays idle for good. This one listens to its socket: when the
 * connection comes back after a drop (the socket reconnects by itself, at most 200 ms apart by
 * default), an idle worker says READY again at once, so it is back in service as soon as the queue
 * accepts again. Its REQ socket is relaxed (ZMQ_REQ_RELAXED) for that: the READY of the old
 * connection is never answered. A worker that is handling a request when the queue comes back
 * registers with its reply, as the guide's queue takes any worker message as READY.
 *
 * <p>A socket that stopped reconnecting (a {@link io.zmtp.socket.ReconnectStop} case of its
 * socket options, such as a refused connect; or the queue's ERROR) leaves the worker nothing to
 * do: it closes itself, and its {@link #terminated()} fails with a {@link ReconnectStoppedException}
 * naming the endpoint and the reason.
 */
public final class SimplePirateWorker extends LoopComponent {
    private static final Logger log = LoggerFactory.getLogger(SimplePirateWorker.class);

    private final WorkerSettings settings;
    private final EventReporter<WorkerEvent> events;
    private final ZmtpSocket socket;
    private final String identity;
    private final WorkerCore core;
    /** The connection dropped since it last came up (on the loop). */
    private boolean lost;

    public SimplePirateWorker(ZmtpContext context, WorkerSettings settings, Consumer<? super WorkerEvent> listener) {
        super(context.group().next(), settings.clock());
        this.settings = settings;
        this.events = new EventReporter<>(listener, log, "Simple Pirate worker");
        this.identity = settings.identity() != null ? settings.identity() : WorkerSettings.randomIdentity();
        this.socket = context.socket(SocketType.REQ, settings.socketOptions().toBuilder().identity(identity)
                .reqRelaxed(true).build(), eventLoop());
        // After a failure the worker says READY again: the queue gives it work, the client retries.
        this.core = new WorkerCore(clock(), settings, WorkerCore.Outlet.on(socket, SimplePirateWorker::ready,
                this::closeAsync), events, () -> identity);
    }

    /** This worker's identity, as the queue knows it. */
    public String identity() {
        return identity;
    }

    @Override
    protected CompletionStage<Void> onStart() {
        socket.onMessage(this::onRequest);
        socket.monitor(this::connectionEvent);
        return Futures.of(socket.connect(settings.endpoint())).thenRun(() -> inLoop(() -> {
            if (!isClosing()) {
                socket.send(ready());
                events.report(() -> new WorkerEvent.Ready(identity, settings.endpoint()));
            }
        }));
    }

    /**
     * The connection came back after a drop: an idle worker registers again with the new queue.
     * The socket stopped reconnecting: the worker closes, its {@link #terminated()} failing with
     * the reason.
     */
    private void connectionEvent(SocketEvent e) {
        if (isClosing()) {
            return;
        }
        if (e.type() == SocketEvent.Type.RECONNECT_STOPPED) {
            closeFailed(ReconnectStoppedException.of(e));
        } else if (e.type() == SocketEvent.Type.DISCONNECTED) {
            lost = true;
        } else if (e.type() == SocketEvent.Type.HANDSHAKE_SUCCEEDED && lost) {
            lost = false;
            if (!core.isBusy()) {
                socket.send(ready());
                events.report(() -> new WorkerEvent.Ready(identity, settings.endpoint()));
            }
        }
    }

    private static ZmtpMessage ready() {
        return ZmtpMessage.of(new byte[] {SimplePirateQueue.READY});
    }

    private void onRequest(ZmtpMessage msg) {
        // The REQ socket removed the queue's delimiter: [client envelope..., "", body...]
        if (isClosing()) {
            msg.release();
            return;
        }
        int d = Envelope.delimiter(msg);
        if (d < 0 || d == msg.size() - 1) {
            events.report(() -> new WorkerEvent.InvalidMessage(identity, Envelope.describe(msg)));
            msg.release();
            socket.send(ready());
            return;
        }
        core.offer(msg, d, 0);
    }

    /** Closes the socket with linger 0, as a crash would: a request being handled is lost. */
    @Override
    protected CompletionStage<Void> onClose() {
        core.close();
        return Futures.of(socket.close(Duration.ZERO));
    }

    /**
     * The settings builder of a Simple Pirate worker: the kit's {@link WorkerSettings}, connecting
     * by default where the guide's worker does, the queue's backend at {@code tcp://localhost:5556};
     * echo by default.
     */
    public static WorkerSettings.PlainBuilder settings() {
        return WorkerSettings.builder("tcp://localhost:5556");
    }
}
