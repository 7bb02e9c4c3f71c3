package io.zmtp.patterns.freelance;

import io.netty.buffer.ByteBuf;
import io.zmtp.patterns.kit.ComponentSettings;
import io.zmtp.patterns.kit.Envelope;
import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.kit.LoopComponent;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.FrameText;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * The guide's Freelance servers, one per model, all on one socket and its event loop:
 * <ul>
 * <li>model 1: a REP socket that echoes each request (the client fails over between servers);</li>
 * <li>model 2: a REP socket that answers {@code [sequence, body...]} with {@code [sequence, "OK"]}
 *     (the client sends each request to every server and takes the first answer);</li>
 * <li>model 3: a ROUTER whose identity is its public endpoint ({@code tcp://*:5555} is known as
 *     {@code tcp://localhost:5555}), answering {@code PING} with {@code PONG} and
 *     {@code [control, body...]} with {@code [control, "OK"]} (10/FLP).</li>
 * </ul>
 */
public final class FreelanceServer extends LoopComponent {
    private static final Logger log = LoggerFactory.getLogger(FreelanceServer.class);
    static final String PING = "PING";
    static final String PONG = "PONG";
    static final String OK = "OK";

    private final Settings settings;
    private final EventReporter<FreelanceEvent> events;
    private final ZmtpSocket socket;
    private volatile String endpoint;

    public FreelanceServer(ZmtpContext context, Settings settings, Consumer<? super FreelanceEvent> listener) {
        super(context.group().next(), settings.clock());
        this.settings = Objects.requireNonNull(settings);
        this.events = new EventReporter<>(listener, log, "Freelance server");
        SocketOptions options = settings.socketOptions.toBuilder().linger(Duration.ZERO).build();
        if (settings.model == 3) {
            options = options.toBuilder().identity(settings.identity()).build();
        }
        this.socket = context.socket(settings.model == 3 ? SocketType.ROUTER : SocketType.REP, options, eventLoop());
    }

    public FreelanceServer(ZmtpContext context, Settings settings) {
        this(context, settings, null);
    }

    public Settings settings() {
        return settings;
    }

    /** The endpoint bound (with the port chosen for port 0); null before start completes. */
    public String endpoint() {
        return endpoint;
    }

    @Override
    protected CompletionStage<Void> onStart() {
        socket.onMessage(settings.model == 3 ? this::onRouterMessage : this::onRequest);
        return Futures.of(socket.bind(settings.endpoint)).thenAccept(bound -> {
            endpoint = bound;
            inLoop(() -> events.report(() -> new FreelanceEvent.Listening(settings.model, bound,
                    settings.model == 3 ? settings.identity() : "")));
        });
    }

    /** Closes with linger 0: unsent replies are dropped, as when a server process dies. */
    @Override
    protected CompletionStage<Void> onClose() {
        return Futures.of(socket.close(Duration.ZERO));
    }

    /** Models 1 and 2 (REP: the envelope is kept by the socket; a REP must answer every request). */
    private void onRequest(ZmtpMessage request) {
        if (isClosing()) {
            request.release();
            return;
        }
        String detail = settings.traceMessages() && events.isActive() ? Envelope.describe(request) : null;
        if (settings.model == 1) {
            socket.send(request);
        } else {
            ZmtpMessage reply = ZmtpMessage.newMessage();
            reply.add(request.isEmpty() ? io.netty.buffer.Unpooled.EMPTY_BUFFER : request.removeFirst());
            reply.add(OK);
            request.release();
            socket.send(reply);
        }
        if (detail != null) {
            events.report(() -> new FreelanceEvent.Answered(detail));
        }
    }

    /** Model 3: {@code [client, PING]} or {@code [client, control, body...]}. */
    private void onRouterMessage(ZmtpMessage msg) {
        if (isClosing()) {
            msg.release();
            return;
        }
        if (msg.size() < 2) {
            events.report(() -> new FreelanceEvent.Discarded("a message without a control frame: "
                    + Envelope.describe(msg)));
            msg.release();
            return;
        }
        ByteBuf client = msg.removeFirst();
        ByteBuf control = msg.removeFirst();
        String detail = settings.traceMessages() && events.isActive() ? FrameText.describe(control) : null;
        boolean ping = msg.isEmpty() && isText(control, PING);
        msg.release();
        ZmtpMessage reply = ZmtpMessage.newMessage().add(client);
        if (ping) {
            control.release();
            reply.add(PONG);
        } else {
            reply.add(control).add(OK);
        }
        socket.send(reply);
        if (detail != null) {
            events.report(() -> new FreelanceEvent.Answered(detail));
        }
    }

    static boolean isText(ByteBuf frame, String text) {
        if (frame.readableBytes() != text.length()) {
            return false;
        }
        int r = frame.readerIndex();
        for (int i = 0; i < text.length(); i++) {
            if (frame.getByte(r + i) != (byte) text.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * What a Freelance server needs: its model (1, 2 or 3) and endpoint (the guide's
     * tcp://*:5555). A model 3 server's identity is its endpoint with {@code *} read as
     * {@code localhost}, so its endpoint needs an explicit port.
     */
    public static final class Settings extends ComponentSettings {
        final int model;
        final String endpoint;
        final SocketOptions socketOptions;

        private Settings(Builder b) {
            super(b);
            model = b.model;
            endpoint = b.endpoint;
            socketOptions = b.socketOptions;
        }

        public static Builder builder() {
            return new Builder();
        }

        public int model() {
            return model;
        }

        public String endpoint() {
            return endpoint;
        }

        /** A model 3 server's routing id: the endpoint clients connect to. */
        public String identity() {
            return publicEndpoint(endpoint);
        }

        /** {@code tcp://*:5555} as clients reach it: {@code tcp://localhost:5555}; others as given. */
        public static String publicEndpoint(String endpoint) {
            return endpoint.replace("://*:", "://localhost:");
        }

        public static final class Builder extends ComponentSettings.Builder<Builder, Settings> {
            private int model = 3;
            private String endpoint = "tcp://*:5555";
            private SocketOptions socketOptions = ComponentSettings.SOCKET_OPTIONS;

            private Builder() {
            }

            @Override
            protected Builder self() {
                return this;
            }

            /** Which of the guide's three models (3 by default). */
            public Builder model(int model) {
                if (model < 1 || model > 3) {
                    throw new IllegalArgumentException("model must be 1, 2 or 3");
                }
                this.model = model;
                return this;
            }

            /** Where to bind (tcp://*:5555 by default). */
            public Builder endpoint(String endpoint) {
                this.endpoint = Objects.requireNonNull(endpoint);
                return this;
            }

            /** Options of the socket (security, limits); linger is always 0. */
            public Builder socketOptions(SocketOptions options) {
                this.socketOptions = Objects.requireNonNull(options);
                return this;
            }

            @Override
            public Settings build() {
                if (model == 3 && (endpoint.endsWith(":0") || endpoint.endsWith(":*"))) {
                    throw new IllegalArgumentException("a model 3 server is known by its endpoint: give it a port");
                }
                return new Settings(this);
            }
        }
    }
}
