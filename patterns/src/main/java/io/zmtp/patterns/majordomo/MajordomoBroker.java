package io.zmtp.patterns.majordomo;

import io.netty.buffer.ByteBufUtil;
import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.kit.LoopClock;
import io.zmtp.patterns.kit.LoopComponent;
import io.zmtp.patterns.kit.PeerLiveness;
import io.zmtp.patterns.majordomo.MdpVersion.WorkerCommand;
import io.zmtp.patterns.majordomo.BrokerService.QueuedClient;
import io.zmtp.patterns.majordomo.BrokerService.QueuedRequest;
import io.zmtp.patterns.majordomo.BrokerService.Worker;
import io.zmtp.socket.RouterSocket;
import io.zmtp.socket.RoutingId;
import io.zmtp.socket.SocketEvent;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.FrameText;
import io.zmtp.wire.PeerFailureLog;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The Majordomo broker (the guide's mdbroker): one ROUTER socket that serves clients and workers
 * of both protocol versions, per-service request queues, least-recently-used worker selection,
 * heartbeats both ways, and the MMI services. It is a reactor: a message handler and its timers,
 * all on the ROUTER's event loop, so its state needs no locks; it has no thread of its own.
 *
 * <h2>Its pieces</h2>
 * <ul>
 *   <li>{@link MdpProtocol} reads every message once into an {@link MdpCommand} (a malformed one
 *       is dropped there: rate-limited log line, event {@code INVALID_MESSAGE}) and frames
 *       everything the broker sends, in the version of whoever receives it.</li>
 *   <li>{@link RequestQueue}: the requests that found no idle worker, one FIFO per service, as
 *       compact heap copies, within the four queue limits; expiry of requests whose service has
 *       no worker.</li>
 *   <li>{@link WorkerTable}: what workers say (READY, replies, HEARTBEAT, DISCONNECT), the
 *       registered workers, each service's idle ones in LRU order, their liveness and the
 *       HEARTBEATs they are due.</li>
 *   <li>{@link InFlightRequest}: the request a worker serves, and its replies reframed in the
 *       client's version (joined into one REPLY for an MDP/0.1 client of a worker that streams).</li>
 *   <li>{@link ServiceTable}: the services known, within their limit; {@link MmiService}: 8/MMI.</li>
 *   <li>The kit's {@link PeerLiveness}: the workers' liveness, the HEARTBEATs they are due, and
 *       the beat.</li>
 *   <li>This class: the socket and lifecycle, client requests, dispatch to idle workers, and the
 *       checks when a peer's connection closes.</li>
 * </ul>
 *
 * <h2>How a request flows</h2>
 * <ol>
 *   <li>{@code client-id | ...} arrives and is read as a {@code ClientRequest} of its version; an
 *       {@code mmi.} service is answered at once.</li>
 *   <li>If the service has an idle worker and nothing queued, the request's frames go to that
 *       worker as they are (no copy); otherwise it is checked against the limits and queued (or
 *       refused: a final reply {@code mmi.refused | reason} in the client's version, see
 *       {@link MdpProtocol#REFUSED}, and the event {@code REQUEST_REJECTED}).</li>
 *   <li>While the service has idle workers and queued requests, the oldest request goes to the
 *       worker idle longest, framed in that worker's version; the worker remembers which client
 *       (and which client version) it serves.</li>
 *   <li>The worker's REPLY (0.1), or PARTIALs and a FINAL (0.2), is checked (known worker, a request in
 *       progress, the same client) and reframed in the <em>client's</em> version: a 0.2 client
 *       served by a 0.1 worker gets a FINAL, a 0.1 client served by a 0.2 worker one joined
 *       REPLY. After the last one the worker is idle again and the next request goes out.</li>
 * </ol>
 *
 * <h2>Heartbeats</h2>
 * Every heartbeat interval the workers' liveness forgets workers silent for the heartbeat expiry (busy or
 * idle: 7/MDP and 18/MDP require heartbeats both ways at all times, and a worker that died
 * mid-request must not stay registered; {@link MajordomoWorker} heartbeats while its handler
 * runs, and a worker built like the guide's single-threaded mdwrkapi must answer within the
 * expiry), but not on a tick that ran late (the loop stalled and has not read what they sent),
 * and expires requests that waited too long for a service without workers.
 *
 * <h2>Peers gone</h2>
 * When a connection closes (the ROUTER's {@code DISCONNECTED} event names the peer's routing id),
 * the queued requests of that client are dropped (event {@code CLIENT_GONE}), or that worker is
 * forgotten, at once; the same check is made before a request goes to a worker. An event without
 * an id, which a ROUTER does not send, makes the broker check every client and worker
 * ({@link PeerSweep}).
 *
 * <h2>Lifecycle</h2>
 * A {@link LoopComponent}: the constructor binds nothing; {@link #start()} binds the settings'
 * {@link MajordomoBrokerSettings#endpoints() endpoints} in order (all on the one socket), starts
 * the heartbeat, and completes when all are bound (or fails with the first bind error);
 * {@link #endpoints()} then gives the endpoints bound, with the port chosen for port 0.
 * {@link #closeAsync()} sends DISCONNECT to every worker, drops what is queued and closes the
 * socket with its linger.
 */
public final class MajordomoBroker extends LoopComponent {
    private static final Logger log = LoggerFactory.getLogger(MajordomoBroker.class);
    private static final PeerFailureLog peerLog = PeerFailureLog.get(MajordomoBroker.class);

    /** The bytes a queued request is counted for on top of its body: its node and array headers. */
    public static final int REQUEST_OVERHEAD = RequestQueue.REQUEST_OVERHEAD;

    private final MajordomoBrokerSettings settings;
    private final RouterSocket socket;
    private final MessageTracer tracer;
    private final EventReporter<MajordomoEvent> events;
    private final LoopClock clock;
    private final ServiceTable services;
    private final RequestQueue queue;
    private final WorkerTable workers;
    /**
     * The workers' liveness: every heartbeat interval it expires silent workers, and this broker
     * then the requests without a worker; a worker's HEARTBEAT an interval after it was last sent to.
     */
    private final PeerLiveness<Worker> liveness;
    /** Checks every peer when a connection closed without naming its peer. */
    private final PeerSweep sweep;
    private boolean closed;
    private volatile List<String> endpoints = List.of();
    /** Whether a client request may be served (the Binary Star vote of a highly available broker); null: always. */
    private ClientGate clientGate;

    /**
     * Asked, on the loop, before a client request (MMI included) is looked at: false drops it
     * unanswered (the client times out and fails over). A {@link HighAvailabilityBroker}'s vote.
     */
    @FunctionalInterface
    interface ClientGate {
        boolean admit();
    }

    /** A broker with the default settings; start it to bind and serve. */
    public MajordomoBroker(ZmtpContext ctx) {
        this(ctx, MajordomoBrokerSettings.DEFAULTS);
    }

    public MajordomoBroker(ZmtpContext ctx, MajordomoBrokerSettings settings) {
        super(ctx.group().next(), settings.clock());
        this.settings = settings;
        this.tracer = settings.tracer();
        this.events = new EventReporter<>(settings.listener(), log, "Majordomo broker");
        this.socket = (RouterSocket) ctx.socket(SocketType.ROUTER, settings.socketOptions(), eventLoop());
        this.clock = clock();
        this.services = new ServiceTable(settings.maxServices());
        this.queue = new RequestQueue(settings, clock, services, (client, service) ->
                event(MajordomoEvent.Type.REQUEST_EXPIRED, ByteBufUtil.hexDump(client.bytes()), service.name, null));
        this.liveness = new PeerLiveness<>(clock, settings.heartbeat(), new PeerLiveness.Owner<>() {
            @Override
            public void beat(boolean counted) {
                if (!closed) {
                    queue.expire();
                }
            }

            @Override
            public void expired(Worker w) {
                workers.expired(w);
            }

            @Override
            public void due(Worker w) {
                workers.heartbeat(w);
            }
        });
        this.workers = new WorkerTable(settings, clock, services, queue, liveness, new WorkerTable.Owner() {
            @Override
            public void send(ZmtpMessage m, String what) {
                MajordomoBroker.this.send(m, what);
            }

            @Override
            public void event(MajordomoEvent.Type type, String peer, String service, String detail) {
                MajordomoBroker.this.event(type, peer, service, detail);
            }

            @Override
            public void idle(BrokerService s) {
                dispatch(s);
            }
        });
        this.sweep = new PeerSweep(eventLoop(), () -> {
            List<Object> peers = new ArrayList<>(queue.clients());
            peers.addAll(workers.all());
            return peers;
        }, this::checkGone);
    }

    /**
     * Binds the settings' endpoints in order and starts the heartbeat; completes when all
     * are bound ({@link #endpoints()}).
     */
    @Override
    protected CompletionStage<Void> onStart() {
        socket.onMessage(this::onMessage);
        socket.monitor(e -> {
            if (e.type() == SocketEvent.Type.DISCONNECTED) {
                if (e.routingId() != null) {
                    peerGone(e.routingId());
                } else if (!closed) {
                    sweep.start();
                }
            }
        });
        // If the socket closes under the broker (its context closed first), let go of what it holds.
        socket.closeFuture().addListener(f -> releaseAll());
        liveness.start();
        CompletionStage<Void> all = CompletableFuture.completedFuture(null);
        List<String> bound = new ArrayList<>();
        for (String e : settings.endpoints()) {
            all = all.thenCompose(v -> Futures.of(socket.bind(e))).thenAccept(bound::add);
        }
        return all.thenAccept(v -> endpoints = List.copyOf(bound));
    }

    /**
     * The endpoints bound, in the settings' order, with the port chosen for port 0; empty before
     * {@link #start()} completes.
     */
    public List<String> endpoints() {
        return endpoints;
    }

    /** The first endpoint bound (where clients and workers connect); null before {@link #start()} completes. */
    public String endpoint() {
        List<String> e = endpoints;
        return e.isEmpty() ? null : e.get(0);
    }

    /** The settings this broker runs with. */
    public MajordomoBrokerSettings settings() {
        return settings;
    }

    /** The ROUTER socket (for monitoring). */
    public ZmtpSocket socket() {
        return socket;
    }

    // ------------------------------------------------------------------ receiving

    private void onMessage(ZmtpMessage msg) {
        if (closed) {
            msg.release();
            return;
        }
        if (tracer != null) {
            tracer.trace("I: received message:", msg);
        }
        MdpCommand cmd;
        try {
            cmd = MdpProtocol.fromRouter(msg);
        } catch (MdpProtocol.MdpFormatException e) {
            invalid(msg, e.getMessage());
            return;
        }
        try {
            if (cmd instanceof MdpCommand.ClientRequest r) {
                if (clientGate != null && !clientGate.admit()) {
                    r.release();
                    return;
                }
                onRequest(r);
            } else {
                workers.onCommand(cmd);
            }
        } catch (RuntimeException e) {
            log.warn("broker failed on a message", e);
        }
    }

    private void invalid(ZmtpMessage msg, String reason) {
        String from = msg.size() > 0 ? ByteBufUtil.hexDump(msg.frame(0)) : "?";
        msg.release();
        peerLog.warn("Majordomo broker drops an invalid message from {}: {}", from, FrameText.escape(reason));
        event(MajordomoEvent.Type.INVALID_MESSAGE, from, null, reason);
    }

    // ------------------------------------------------------------------ clients

    private void onRequest(MdpCommand.ClientRequest r) {
        if (r.service().readableBytes() > settings.maxServiceNameBytes()) {
            refuse(r, null, "service name longer than " + settings.maxServiceNameBytes() + " bytes");
            return;
        }
        String name = r.serviceName();
        if (MmiService.isInternal(name)) {
            answerMmi(r, name);
            return;
        }
        BrokerService s = services.getOrCreate(name);
        if (s == null) {
            refuse(r, name, services.fullReason());
            return;
        }
        if (s.head == null && !s.idle.isEmpty()) {
            // An idle worker and nothing queued before: forward the frames as they are, no copy.
            Worker w = workers.pollIdle(s);
            if (socket.hasPeer(w.id)) {
                r.service().release();
                sendRequest(w, r.peer(), r.version(), r.body());
                return;
            }
            workers.gone(w);
            s = services.getOrCreate(name); // the worker may have been its last: the service was forgotten
        }
        RoutingId client = r.peer();
        long size = RequestQueue.sizeOf(r.body());
        String refusal = queue.refusal(s, client, size);
        if (refusal != null) {
            services.forgetIfUnused(s);
            refuse(r, s.name, refusal);
            return;
        }
        queue.add(client, s, r.version(), r.body(), size);
        r.release();
        if (s.workers > 0) {
            dispatch(s);
        }
    }

    /**
     * Answers a request the broker will not queue: a final reply for the service asked for, body
     * {@code mmi.refused | reason}, in the client's version.
     */
    private void refuse(MdpCommand.ClientRequest r, String name, String reason) {
        String client = ByteBufUtil.hexDump(r.peer().bytes());
        String service = name != null ? name : FrameText.describe(r.service());
        peerLog.warn("Majordomo broker refuses a request from {} for {}: {}", client, FrameText.escape(service), reason);
        event(MajordomoEvent.Type.REQUEST_REJECTED, client, service, reason);
        r.body().release();
        send(MdpProtocol.refusal(r.peer(), r.version(), r.service(), reason), "I: sending a refusal to client");
    }

    private void answerMmi(MdpCommand.ClientRequest r, String name) {
        String argument = MdpProtocol.string(r.body().frame(0));
        String answer = MmiService.answer(name, argument, services::workersOf);
        r.body().release();
        ZmtpMessage reply = MdpProtocol.replyToClient(r.peer(), ZmtpMessage.newMessage().add(answer),
                r.version(), true, r.service());
        event(MajordomoEvent.Type.MMI_ANSWERED, null, name, argument + " -> " + answer);
        send(reply, "I: sending MMI reply to client");
    }

    // ------------------------------------------------------------------ to workers

    /** Sends queued requests to idle workers while there are both (skipping gone peers). */
    private void dispatch(BrokerService s) {
        while (!s.idle.isEmpty() && s.head != null && !closed) {
            QueuedRequest q = s.head;
            if (!socket.hasPeer(q.client.id)) {
                goneClient(q.client);
                continue;
            }
            Worker w = workers.pollIdle(s);
            if (!socket.hasPeer(w.id)) {
                workers.gone(w);
                continue;
            }
            sendRequest(w, q.client.id, q.version, queue.take(q));
        }
    }

    /** Sends {@code body} (ownership passes) from {@code client} to worker {@code w} as a REQUEST. */
    private void sendRequest(Worker w, RoutingId client, MdpVersion clientVersion, ZmtpMessage body) {
        w.current = new InFlightRequest(client, clientVersion);
        workers.sentTo(w);
        send(MdpProtocol.requestToWorker(w.id, w.version, client, body), "I: sending REQUEST to worker");
    }

    // ------------------------------------------------------------------ peers gone

    /**
     * The connection of the peer {@code id} closed: the client or worker it was is gone, unless a
     * new connection took the id over meanwhile.
     */
    private void peerGone(RoutingId id) {
        if (closed || socket.hasPeer(id)) {
            return;
        }
        QueuedClient c = queue.client(id);
        if (c != null) {
            goneClient(c);
        }
        Worker w = workers.get(id);
        if (w != null) {
            workers.gone(w);
        }
    }

    /** One peer of a sweep: gone if it is still the broker's and its connection is not there. */
    private void checkGone(Object peer) {
        if (peer instanceof QueuedClient c) {
            if (queue.client(c.id) == c && !socket.hasPeer(c.id)) {
                goneClient(c);
            }
        } else {
            Worker w = (Worker) peer;
            if (workers.get(w.id) == w && !socket.hasPeer(w.id)) {
                workers.gone(w);
            }
        }
    }

    private void goneClient(QueuedClient c) {
        int n = queue.drop(c);
        String hex = ByteBufUtil.hexDump(c.id.bytes());
        if (log.isDebugEnabled()) {
            log.debug("client {} is gone: dropped its {} queued request(s)", hex, n);
        }
        event(MajordomoEvent.Type.CLIENT_GONE, hex, null, n + " queued request(s) dropped");
    }

    // ------------------------------------------------------------------ sending

    private void send(ZmtpMessage m, String what) {
        if (tracer != null) {
            tracer.trace(what, m);
        }
        try {
            if (!socket.trySend(m)) {
                log.debug("broker socket refused a message: dropped");
                m.release();
            }
        } catch (RuntimeException e) {
            log.debug("broker could not send: {}", e.toString());
            if (m.refCnt() > 0) {
                m.release();
            }
        }
    }

    private void event(MajordomoEvent.Type type, String peer, String service, String detail) {
        events.report(() -> new MajordomoEvent(type, peer, service, detail));
    }

    // ------------------------------------------------------------------ high availability

    /** Sets the gate of client requests (before start; on any thread before, the loop after). */
    void clientGate(ClientGate gate) {
        this.clientGate = gate;
    }

    /**
     * Sends DISCONNECT to every idle worker that registered at or before {@code registeredBy} (a
     * {@link LoopClock} time) and forgets it: a passive broker's standby workers, sent on to the
     * active peer. A worker serving a request is left to finish it (it goes at a later call).
     * On the loop; returns how many were sent away.
     */
    int sendAwayWorkers(long registeredBy, String reason) {
        if (closed || workers.size() == 0) {
            return 0;
        }
        return workers.sendAway(registeredBy, reason);
    }

    // ------------------------------------------------------------------ inspection

    /** The number of registered workers (all services). */
    public int workerCount() {
        return onLoop(workers::size);
    }

    /** The number of workers registered for a service. */
    public int workerCount(String service) {
        return onLoop(() -> services.workersOf(service));
    }

    /** The number of requests waiting for a worker of a service. */
    public int queuedRequests(String service) {
        return onLoop(() -> {
            BrokerService s = services.get(service);
            return s == null ? 0 : s.count;
        });
    }

    /** The number of requests waiting, all services. */
    public int queuedRequests() {
        return onLoop(queue::count);
    }

    /** The bytes the queued requests are counted for (bodies plus {@value #REQUEST_OVERHEAD} each). */
    public long queuedBytes() {
        return onLoop(queue::bytes);
    }

    /** The number of clients that have requests queued. */
    public int clientCount() {
        return onLoop(() -> queue.clients().size());
    }

    /** The names of the services known (with workers or queued requests). */
    public List<String> services() {
        return onLoop(services::names);
    }

    private <T> T onLoop(Callable<T> c) {
        return callOnLoop(c);
    }

    // ------------------------------------------------------------------ closing

    /**
     * Stops the broker: sends DISCONNECT to every worker (so they reconnect and register again
     * when a broker is back), drops queued requests, and closes the socket with its linger.
     */
    @Override
    protected CompletionStage<Void> onClose() {
        if (!closed) {
            for (Worker w : workers.all()) {
                send(MdpProtocol.toWorker(w.id, w.version, WorkerCommand.DISCONNECT), "I: sending DISCONNECT to worker");
            }
            releaseAll();
        }
        socket.close(settings.socketOptions().linger());
        return Futures.of(socket.closeFuture());
    }

    /** Forgets every worker and drops every queued request (on the loop). */
    private void releaseAll() {
        closed = true;
        liveness.stop();
        workers.clear();
        queue.clear();
        services.clear();
        sweep.stop();
    }
}
