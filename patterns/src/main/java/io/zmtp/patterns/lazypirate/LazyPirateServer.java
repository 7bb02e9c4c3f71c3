package io.zmtp.patterns.lazypirate;

import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.kit.LoopComponent;
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
 * The guide's Lazy Pirate server: a REP server answering one request at a time through its
 * {@link io.zmtp.patterns.kit.RequestHandler} (echo by default: the request is the reply).
 *
 * <p>For demonstrations it can take its time ({@link WorkerSettings.Builder#workTime}) and
 * simulate the guide's faults ({@link WorkerSettings.Builder#simulation}, off by default): a crash
 * closes the socket at once, as a killed process would, and ends the server; an overload answers
 * late. Nothing blocks the event loop: delays are timers on the settings' clock.
 */
public final class LazyPirateServer extends LoopComponent {
    private static final Logger log = LoggerFactory.getLogger(LazyPirateServer.class);

    private final WorkerSettings settings;
    private final EventReporter<WorkerEvent> events;
    private final ZmtpSocket socket;
    private final WorkerCore core;
    private volatile String endpoint;

    public LazyPirateServer(ZmtpContext context, WorkerSettings settings, Consumer<? super WorkerEvent> listener) {
        super(context.group().next(), settings.clock());
        this.settings = settings;
        this.events = new EventReporter<>(listener, log, "Lazy Pirate server");
        this.socket = context.socket(SocketType.REP, settings.socketOptions(), eventLoop());
        // A REP socket must answer before it reads again: after a failure, an empty reply.
        this.core = new WorkerCore(clock(), settings, WorkerCore.Outlet.on(socket, () -> ZmtpMessage.ofStrings(""),
                this::closeAsync), events, () -> null);
    }

    @Override
    protected CompletionStage<Void> onStart() {
        socket.onMessage(this::onRequest);
        return Futures.of(socket.bind(settings.endpoint())).thenAccept(bound -> {
            endpoint = bound;
            inLoop(() -> events.report(() -> new WorkerEvent.Listening(bound)));
        });
    }

    /** The endpoint bound (with the port chosen for port 0); null before start completes. */
    public String endpoint() {
        return endpoint;
    }

    private void onRequest(ZmtpMessage request) {
        if (isClosing()) {
            request.release();
            return;
        }
        core.offer(request, -1, 0);
    }

    /** Closes with linger 0: unsent replies are dropped, as when a server process dies. */
    @Override
    protected CompletionStage<Void> onClose() {
        core.close();
        return Futures.of(socket.close(Duration.ZERO));
    }

    /**
     * The settings builder of a Lazy Pirate server: the kit's {@link WorkerSettings}, bound by
     * default where the guide's lpserver binds, {@code tcp://*:5555}; echo by default.
     */
    public static WorkerSettings.PlainBuilder settings() {
        return WorkerSettings.builder("tcp://*:5555");
    }
}
