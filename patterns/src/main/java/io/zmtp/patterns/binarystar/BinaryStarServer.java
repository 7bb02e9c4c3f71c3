package io.zmtp.patterns.binarystar;

import io.zmtp.patterns.kit.ComponentSettings;
import io.zmtp.patterns.kit.Envelope;
import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.kit.LoopComponent;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * One server of a Binary Star pair, as a reactor any server application plugs into (the guide's
 * bstar): the application gives the handler of its frontend ({@link FrontendHandler}, the
 * guide's "voter") and, if it wants them, callbacks for becoming active and passive; the reactor
 * runs the pair's state exchange and hands a client request to the handler only when the
 * {@link BinaryStarFsm} says this server serves it (others are dropped: the client times out
 * and fails over).
 *
 * <p>State exchange (the {@link BinaryStarStateExchange}, shared with the highly available
 * Majordomo broker): a PUB socket bound on {@link BinaryStarSettings.Builder#statePublisher} publishes this
 * server's state every heartbeat (one frame, ASCII decimal, as the guide's servers do), and a SUB
 * socket connected to the peer's publisher ({@link BinaryStarSettings.Builder#statePeer}) takes the peer's.
 * A peer silent for two heartbeats counts as gone ({@link BinaryStarEvent.PeerLost}); a passive
 * server becomes active only when its peer is gone AND a client request arrives (the guide's rule
 * against split brain: a server that merely lost the state channel, while clients still reach the
 * active one, stays passive). A fatal pair (dual active, dual passive, two primaries, two
 * backups) is reported ({@link BinaryStarEvent.Fatal}) and closes the server.
 *
 * <p>Everything (the three sockets, the heartbeat, the handler and the callbacks) runs on one
 * event loop; the handler and callbacks must not block it.
 */
public final class BinaryStarServer extends LoopComponent {
    private static final Logger log = LoggerFactory.getLogger(BinaryStarServer.class);

    /** The application's handler of client requests (the guide's voter): called on the loop, owns the message. */
    @FunctionalInterface
    public interface FrontendHandler {
        /** Echoes each request back on the frontend (the guide's server). */
        FrontendHandler ECHO = ZmtpSocket::send;

        /** A request this server serves; the handler owns {@code request} and replies on {@code frontend}. */
        void handle(ZmtpSocket frontend, ZmtpMessage request);
    }

    private final Settings settings;
    private final FrontendHandler handler;
    private final EventReporter<BinaryStarEvent> events;
    private final ZmtpSocket frontend;
    private final BinaryStarStateExchange pair;
    private volatile String frontendEndpoint;

    public BinaryStarServer(ZmtpContext context, Settings settings, FrontendHandler handler,
            Consumer<? super BinaryStarEvent> listener) {
        super(context.group().next(), settings.clock());
        this.settings = Objects.requireNonNull(settings);
        this.handler = Objects.requireNonNull(handler);
        this.events = new EventReporter<>(listener, log, "Binary Star server");
        this.frontend = context.socket(settings.frontendType, settings.socketOptions, eventLoop());
        this.pair = new BinaryStarStateExchange(context, eventLoop(), clock(), settings.isPrimary(),
                settings.statePublisher(), settings.statePeer(), settings.stateHeartbeat(), settings.socketOptions, events)
                .onFatal(this::closeAsync);
    }

    /** The guide's echo server: {@link FrontendHandler#ECHO}. */
    public BinaryStarServer(ZmtpContext context, Settings settings, Consumer<? super BinaryStarEvent> listener) {
        this(context, settings, FrontendHandler.ECHO, listener);
    }

    /** Runs {@code callback} on the loop each time this server becomes active (set it before start). */
    public BinaryStarServer onActive(Runnable callback) {
        pair.onActive(callback);
        return this;
    }

    /** Runs {@code callback} on the loop each time this server becomes passive (set it before start). */
    public BinaryStarServer onPassive(Runnable callback) {
        pair.onPassive(callback);
        return this;
    }

    /** The current state (any thread). */
    public BinaryStarState state() {
        return pair.state();
    }

    /** The frontend endpoint bound (port 0 resolved); null before start completes. */
    public String frontendEndpoint() {
        return frontendEndpoint;
    }

    /** The state publisher's endpoint bound; null before start completes. */
    public String stateEndpoint() {
        return pair.stateEndpoint();
    }

    public Settings settings() {
        return settings;
    }

    @Override
    protected CompletionStage<Void> onStart() {
        frontend.onMessage(this::onRequest);
        CompletableFuture<String> fe = Futures.of(frontend.bind(settings.frontend));
        CompletableFuture<String> sp = pair.bind();
        return fe.thenCombine(sp, (f, s) -> {
            frontendEndpoint = f;
            return null;
        }).thenCompose(x -> pair.connectAndStart()).thenRun(() -> inLoop(() -> {
            if (isClosing()) {
                return;
            }
            events.report(() -> new BinaryStarEvent.Listening(pair.state(), frontendEndpoint, pair.stateEndpoint(),
                    settings.statePeer()));
        }));
    }

    @Override
    protected CompletionStage<Void> onClose() {
        return pair.close().thenCombine(Futures.of(frontend.close(Duration.ZERO)), (a, b) -> b);
    }

    private void onRequest(ZmtpMessage request) {
        if (isClosing()) {
            request.release();
            return;
        }
        BinaryStarFsm.Outcome o = pair.clientRequest();
        if (!o.accepted()) {
            request.release();
            return;
        }
        if (settings.traceMessages()) {
            String detail = Envelope.describe(request);
            events.report(() -> new BinaryStarEvent.Served(o.to(), detail));
        }
        try {
            handler.handle(frontend, request);
        } catch (RuntimeException e) {
            log.warn("Binary Star frontend handler failed", e);
        }
    }

    /**
     * A Binary Star server's settings: the pair's ({@link BinaryStarSettings}) and the frontend.
     * {@link #primary()} and {@link #backup()} give the guide's endpoints: the primary serves clients
     * on 5001, publishes its state on 5003 and takes its peer's from 5004; the backup 5002, 5004 and
     * 5003. State heartbeat 1 s; the peer counts as gone after two heartbeats.
     */
    public static final class Settings extends BinaryStarSettings {
        final String frontend;
        final SocketType frontendType;
        final SocketOptions socketOptions;

        private Settings(Builder b) {
            super(b);
            frontend = b.frontend;
            frontendType = b.frontendType;
            socketOptions = b.socketOptions;
        }

        /** The guide's primary: tcp://*:5001, state on tcp://*:5003, peer at tcp://localhost:5004. */
        public static Builder primary() {
            return new Builder(true, "tcp://*:5001");
        }

        /** The guide's backup: tcp://*:5002, state on tcp://*:5004, peer at tcp://localhost:5003. */
        public static Builder backup() {
            return new Builder(false, "tcp://*:5002");
        }

        public String frontend() {
            return frontend;
        }

        public static final class Builder extends BinaryStarSettings.Builder<Builder, Settings> {
            private String frontend;
            private SocketType frontendType = SocketType.ROUTER;
            private SocketOptions socketOptions = ComponentSettings.SOCKET_OPTIONS;

            private Builder(boolean primary, String frontend) {
                super(primary);
                this.frontend = frontend;
            }

            @Override
            protected Builder self() {
                return this;
            }

            /** Where clients connect (bound). */
            public Builder frontend(String endpoint) {
                this.frontend = Objects.requireNonNull(endpoint);
                return this;
            }

            /** The frontend's socket type (ROUTER by default, as the guide's servers). */
            public Builder frontendType(SocketType type) {
                this.frontendType = Objects.requireNonNull(type);
                return this;
            }

            /** Options of the three sockets (security, limits); the state sockets have linger 0. */
            public Builder socketOptions(SocketOptions options) {
                this.socketOptions = Objects.requireNonNull(options);
                return this;
            }

            @Override
            public Settings build() {
                return new Settings(this);
            }
        }
    }
}
