package io.zmtp.patterns.simplepirate;

import io.zmtp.patterns.kit.Envelope;
import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.kit.LoopComponent;
import io.zmtp.patterns.kit.RequestHandler;
import io.zmtp.patterns.kit.WorkerCore;
import io.zmtp.patterns.kit.WorkerEvent;
import io.zmtp.patterns.kit.WorkerSettings;
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
 * <p>As in the guide, a Simple Pirate worker does not notice that its queue restarted (the new
 * queue never heard its READY); that is what the Paranoid Pirate's heartbeats are for.
 */
public final class SimplePirateWorker extends LoopComponent {
    private static final Logger log = LoggerFactory.getLogger(SimplePirateWorker.class);

    private final WorkerSettings settings;
    private final EventReporter<WorkerEvent> events;
    private final ZmtpSocket socket;
    private final String identity;
    private final WorkerCore core;

    public SimplePirateWorker(ZmtpContext context, WorkerSettings settings, Consumer<? super WorkerEvent> listener) {
        super(context.group().next(), settings.clock());
        this.settings = settings;
        this.events = new EventReporter<>(listener, log, "Simple Pirate worker");
        this.identity = settings.identity() != null ? settings.identity() : WorkerSettings.randomIdentity();
        this.socket = context.socket(SocketType.REQ, settings.socketOptions().toBuilder().identity(identity).build(),
                eventLoop());
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
        return Futures.of(socket.connect(settings.endpoint())).thenRun(() -> inLoop(() -> {
            if (!isClosing()) {
                socket.send(ready());
                events.report(() -> new WorkerEvent.Ready(identity, settings.endpoint()));
            }
        }));
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
