package io.zmtp.patterns.majordomo;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.kit.LoopComponent;
import io.zmtp.patterns.kit.HeartbeatTicker;
import io.zmtp.patterns.kit.PeerLiveness;
import io.zmtp.patterns.kit.ReadyWorkers;
import io.zmtp.patterns.kit.LoopClock;
import io.zmtp.patterns.majordomo.MdpVersion.WorkerCommand;
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
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Callable;


/**
 * The Majordomo broker (the guide's mdbroker): one ROUTER socket that serves clients and workers
 * of both protocol versions, per-service request queues, least-recently-used worker selection,
 * heartbeats both ways, and the MMI services. It is a reactor: a message handler and one timer,
 * both on the ROUTER's event loop, so its state needs no locks; it has no thread of its own.
 *
 * <h2>How a request flows</h2>
 * <ol>
 *   <li>A message arrives as {@code client-id | ...}. An empty frame next means MDP/0.1
 *       ({@code "" | MDPC01 | service | body}), otherwise MDP/0.2
 *       ({@code MDPC02 | 01 | service | body}); the header decides whether a client or a worker
 *       speaks. Anything else is dropped and logged.</li>
 *   <li>A request keeps its frames (no copy) as {@code client-id | body...}, with the client's
 *       version, in its service's FIFO queue. {@code mmi.} services are answered at once.</li>
 *   <li>While the service has idle workers and queued requests, the request goes to the worker
 *       idle longest, framed in that worker's version: {@code worker-id | [""] | MDPW0x | REQUEST
 *       | client-id | "" | body}. The broker remembers which client the worker serves.</li>
 *   <li>The worker's reply ({@code REPLY} in 0.1, {@code PARTIAL}* then {@code FINAL} in 0.2) is
 *       checked against that client and reframed in the <em>client's</em> version; after the last
 *       one the worker is idle again and the next queued request goes out.</li>
 * </ol>
 *
 * <h2>Mixing versions</h2>
 * Each worker and each request keeps its own version, so 0.1 and 0.2 clients and workers share
 * one broker and one service:
 * <ul>
 *   <li>a 0.2 client served by a 0.1 worker gets the REPLY as a FINAL;</li>
 *   <li>a 0.1 client served by a 0.2 worker that streams PARTIAL replies gets <em>one</em> REPLY
 *       whose body is the frames of every PARTIAL, in order, followed by the FINAL's frames (0.1
 *       has no PARTIAL, and its REQ clients accept exactly one reply). The broker holds the
 *       partial frames (no copy) until the FINAL; a stream that adds up to more than
 *       {@link MajordomoBrokerSettings#maxAggregatedReplyBytes()} is dropped whole (logged, event
 *       {@code REPLY_DROPPED}) so a 0.1 client never sees a truncated reply; it retries or gives
 *       up as it would with no reply.</li>
 * </ul>
 *
 * <h2>Workers</h2>
 * A worker registers with READY. A valid but unexpected command (a second READY; a reply, a
 * HEARTBEAT or a REQUEST before READY; a reply with no request in progress or to another client;
 * a change of version; READY for an {@code mmi.} service) is answered with DISCONNECT and the
 * worker is forgotten. Any command counts as a heartbeat. Every
 * {@link MajordomoBrokerSettings#heartbeat() heartbeat interval} the timer sends HEARTBEAT to each
 * worker nothing was sent to for half an interval, and forgets workers silent for interval x
 * liveness, busy or idle: 7/MDP and 18/MDP require heartbeats both ways at all times, and a worker
 * that died mid-request must not stay registered. {@link MajordomoWorker} heartbeats while its
 * handler runs; a worker built like the guide's single-threaded mdwrkapi (which the guide's broker
 * never expires while busy) must answer within the heartbeat expiry. A worker lost mid-request
 * loses that request: the client's retry brings it back.
 *
 * <p>One ROUTER serves both sub-protocols; the settings may name several endpoints (say a
 * frontend and a backend address), all bound on that one socket.
 *
 * <h2>Limits</h2>
 * Every message is parsed once into an {@link MdpCommand}; a malformed one is dropped there
 * (rate-limited log line, event {@code INVALID_MESSAGE}). A request the broker cannot queue is
 * <em>refused</em>: the client gets, in its version, a final reply for the service it asked for
 * whose body is two frames, {@value MdpProtocol#REFUSED} and the reason (MDP has no error command;
 * see {@link MdpProtocol#REFUSED}), and the listener gets {@code REQUEST_REJECTED}. It is refused
 * when its service name is longer than {@link MajordomoBrokerSettings#maxServiceNameBytes()}, when
 * it would make more than {@link MajordomoBrokerSettings#maxServices()} services, or when queueing it
 * would pass {@link MajordomoBrokerSettings#maxQueuedRequests() the service's request count},
 * {@link MajordomoBrokerSettings#maxQueuedBytesPerService() its bytes},
 * {@link MajordomoBrokerSettings#maxQueuedBytes() the broker's bytes} or
 * {@link MajordomoBrokerSettings#maxQueuedRequestsPerClient() the client's request count}.
 * A queued request is one compact heap copy of its body plus a small node (no pooled buffer is
 * held, so a flood cannot pin direct memory); it is counted as its body bytes plus
 * {@value #REQUEST_OVERHEAD} bytes. A request that finds an idle worker is forwarded at once
 * without a copy. When a connection closes (the ROUTER's {@code DISCONNECTED} monitor event, which
 * names the peer's routing id), the broker drops the queued requests of that client (event
 * {@code CLIENT_GONE}), or forgets that worker, at once; the same check is made before a request
 * is sent to a worker. (An event without an id, which a ROUTER does not send, makes the broker
 * sweep all its clients and workers, in batches of {@value #SWEEP_BATCH} per loop task.) Requests of services without a worker expire in batches of
 * {@link MajordomoBrokerSettings#expiryBatch()} per loop task.
 *
 * <h2>Scale</h2>
 * Workers and clients are found by {@link RoutingId} in hash maps; each service keeps its idle
 * workers in the kit's {@link ReadyWorkers} (LRU by routing id, O(1)) and its own FIFO of requests;
 * the workers are also kept ordered by when they were last heard from (the kit's
 * {@link PeerLiveness}) and last sent to (a second {@link PeerLiveness}, due an interval after), so each timer looks only at the
 * workers that are due. Work per message is O(1) apart from sending to the idle
 * workers it frees; sweeps and expiry run in bounded batches, so a flood to one service does not
 * hold up the others for longer than a batch.
 *
 * <h2>Lifecycle</h2>
 * A {@link LoopComponent}: the constructor binds nothing; {@link #start()} binds the settings'
 * {@link MajordomoBrokerSettings#endpoints() endpoints} in order, starts the heartbeat timer, and
 * completes when all are bound (or fails with the first bind error); {@link #endpoints()} then
 * gives the endpoints bound, with the port chosen for port 0. {@link #closeAsync()} sends
 * DISCONNECT to every worker, drops what is queued and closes the socket with its linger.
 */
public final class MajordomoBroker extends LoopComponent {
    private static final Logger log = LoggerFactory.getLogger(MajordomoBroker.class);
    private static final PeerFailureLog peerLog = PeerFailureLog.get(MajordomoBroker.class);

    /** The bytes a queued request is counted for on top of its body: its node and array headers. */
    public static final int REQUEST_OVERHEAD = 64;
    /** Clients and workers checked per loop task when a connection closed. */
    static final int SWEEP_BATCH = 512;

    private final MajordomoBrokerSettings settings;
    private final RouterSocket socket;
    private final long intervalNanos;
    private final long requestExpiryNanos;
    private final MessageTracer tracer;
    private final EventReporter<MajordomoEvent> events;

    private final Map<RoutingId, Worker> workers = new HashMap<>();
    private final Map<String, Service> services = new HashMap<>();
    /** Clients that have requests queued. */
    private final Map<RoutingId, Client> clients = new HashMap<>();
    /** The workers by when they were last heard from (longest silent first): the kit's liveness. */
    private final PeerLiveness<Worker> liveness;
    /** The workers by when they were last sent to: due for a HEARTBEAT an interval after (the same kit piece). */
    private final PeerLiveness<Worker> heartbeatDue;
    /** Services that have queued requests and no worker: their requests age. */
    private final LinkedHashSet<Service> orphaned = new LinkedHashSet<>();
    private final LoopClock clock;
    /** Expiry of silent workers and of requests, every heartbeat interval. */
    private final HeartbeatTicker ticker;
    /** The next HEARTBEAT round: due when the worker sent to longest ago has had nothing for an interval. */
    private LoopClock.Timer heartbeatTimer;
    private long queuedBytes;
    private int queuedCount;
    private boolean expiryPending;
    /** The clients and workers still to check in the current sweep, or null. */
    private ArrayList<Object> sweep;
    private boolean sweepAgain;
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
        this.intervalNanos = settings.heartbeat().interval().toNanos();
        this.requestExpiryNanos = settings.requestExpiry().toNanos();
        this.tracer = settings.tracer();
        this.events = new EventReporter<>(settings.listener(), log, "Majordomo broker");
        this.socket = (RouterSocket) ctx.socket(SocketType.ROUTER, settings.socketOptions(), eventLoop());
        clock = clock();
        ticker = new HeartbeatTicker(clock, settings.heartbeat().interval(), this::tick);
        liveness = new PeerLiveness<>(clock, settings.heartbeat().expiry());
        heartbeatDue = new PeerLiveness<>(clock, settings.heartbeat().interval());
    }

    /**
     * Binds the settings' endpoints in order and starts the heartbeat timer; completes when all
     * are bound ({@link #endpoints()}).
     */
    @Override
    protected CompletionStage<Void> onStart() {
        socket.onMessage(this::onMessage);
        socket.monitor(e -> {
            if (e.type() == SocketEvent.Type.DISCONNECTED) {
                if (e.routingId() != null) {
                    peerGone(e.routingId());
                } else {
                    peerGone();
                }
            }
        });
        // If the socket closes under the broker (its context closed first), let go of what it holds.
        socket.closeFuture().addListener(f -> releaseAll());
        ticker.start();
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
                fromWorker(cmd);
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
        Service s = services.get(name);
        if (s == null) {
            if (services.size() >= settings.maxServices()) {
                refuse(r, name, "the broker has " + services.size() + " services, the most it keeps");
                return;
            }
            s = new Service(name);
            services.put(name, s);
        }
        if (s.head == null && !s.idle.isEmpty()) {
            // An idle worker and nothing queued before: forward the frames as they are, no copy.
            Worker w = s.idle.poll();
            if (socket.hasPeer(w.id)) {
                RoutingId client = RoutingId.of(r.peer());
                r.peer().release();
                r.service().release();
                sendRequest(w, client, r.version(), r.body());
                return;
            }
            goneWorker(w);
            s = services.get(name);
            if (s == null) {
                s = new Service(name);
                services.put(name, s);
            }
        }
        queue(r, s);
    }

    /** Queues a request as one compact copy of its body, if the limits allow. */
    private void queue(MdpCommand.ClientRequest r, Service s) {
        ZmtpMessage body = r.body();
        long size = REQUEST_OVERHEAD + body.byteSize() + (body.size() == 1 ? 0 : 4L * body.size());
        RoutingId id = RoutingId.of(r.peer());
        Client c = clients.get(id);
        String refusal = null;
        if (s.count >= settings.maxQueuedRequests()) {
            refusal = "service queue full (" + s.count + " requests)";
        } else if (s.bytes + size > settings.maxQueuedBytesPerService()) {
            refusal = "service queue full (" + s.bytes + " bytes)";
        } else if (queuedBytes + size > settings.maxQueuedBytes()) {
            refusal = "broker queue full (" + queuedBytes + " bytes)";
        } else if (c != null && c.count >= settings.maxQueuedRequestsPerClient()) {
            refusal = "client has " + c.count + " requests queued";
        }
        if (refusal != null) {
            if (s.head == null && s.workers == 0) {
                services.remove(s.name);
            }
            refuse(r, s.name, refusal);
            return;
        }
        if (c == null) {
            c = new Client(id);
            clients.put(id, c);
        }
        long now = clock.nanoTime();
        QueuedRequest q = new QueuedRequest(c, s, r.version(), now, compact(body), body.size(), size);
        r.release();
        s.append(q);
        c.append(q);
        queuedBytes += size;
        queuedCount++;
        if (s.workers == 0) {
            markOrphaned(s, now);
        } else {
            dispatch(s);
        }
    }

    /** The body as one array: the frame itself when there is one, else length-prefixed frames. */
    private static byte[] compact(ZmtpMessage body) {
        if (body.size() == 1) {
            return ByteBufUtil.getBytes(body.frame(0));
        }
        byte[] a = new byte[(int) body.byteSize() + 4 * body.size()];
        int p = 0;
        for (int i = 0; i < body.size(); i++) {
            ByteBuf f = body.frame(i);
            int n = f.readableBytes();
            a[p] = (byte) (n >>> 24);
            a[p + 1] = (byte) (n >>> 16);
            a[p + 2] = (byte) (n >>> 8);
            a[p + 3] = (byte) n;
            f.getBytes(f.readerIndex(), a, p + 4, n);
            p += 4 + n;
        }
        return a;
    }

    /** The body frames of a queued request, wrapping its array (no copy). */
    private static ZmtpMessage expand(QueuedRequest q) {
        ZmtpMessage m = ZmtpMessage.newMessage();
        byte[] a = q.body;
        if (q.frames == 1) {
            return m.add(a);
        }
        int p = 0;
        for (int i = 0; i < q.frames; i++) {
            int n = ((a[p] & 0xFF) << 24) | ((a[p + 1] & 0xFF) << 16) | ((a[p + 2] & 0xFF) << 8) | (a[p + 3] & 0xFF);
            m.add(n == 0 ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(a, p + 4, n));
            p += 4 + n;
        }
        return m;
    }

    /**
     * Answers a request the broker will not queue: a final reply for the service asked for, body
     * {@code mmi.refused | reason}, in the client's version.
     */
    private void refuse(MdpCommand.ClientRequest r, String name, String reason) {
        String client = ByteBufUtil.hexDump(r.peer());
        String service = name != null ? name : FrameText.describe(r.service());
        peerLog.warn("Majordomo broker refuses a request from {} for {}: {}", client, FrameText.escape(service), reason);
        event(MajordomoEvent.Type.REQUEST_REJECTED, client, service, reason);
        r.body().release();
        send(MdpProtocol.refusal(r.peer(), r.version(), r.service(), reason), "I: sending a refusal to client");
    }

    private void answerMmi(MdpCommand.ClientRequest r, String name) {
        String argument = MdpProtocol.string(r.body().frame(0));
        String answer = MmiService.answer(name, argument, this::workersOf);
        r.body().release();
        ZmtpMessage reply = MdpProtocol.replyToClient(ZmtpMessage.newMessage().add(r.peer()).add(answer),
                r.version(), true, r.service());
        event(MajordomoEvent.Type.MMI_ANSWERED, null, name, argument + " -> " + answer);
        send(reply, "I: sending MMI reply to client");
    }

    private int workersOf(String service) {
        Service s = services.get(service);
        return s == null ? 0 : s.workers;
    }

    /** Drops every queued request of a client. */
    private int dropClient(Client c) {
        int n = 0;
        QueuedRequest q;
        while ((q = c.head) != null) {
            unqueue(q);
            n++;
        }
        return n;
    }

    /** Takes a request out of its service's and its client's queues and out of the counts. */
    private void unqueue(QueuedRequest q) {
        Service s = q.service;
        s.unlink(q);
        Client c = q.client;
        c.unlink(q);
        if (c.head == null) {
            clients.remove(c.id);
        }
        queuedBytes -= q.size;
        queuedCount--;
        if (s.head == null) {
            orphaned.remove(s);
            if (s.workers == 0) {
                services.remove(s.name);
            }
        }
    }

    // ------------------------------------------------------------------ workers

    private void fromWorker(MdpCommand cmd) {
        RoutingId id = RoutingId.of(cmd.peer());
        Worker w = workers.get(id);
        MdpVersion v = cmd.version();
        long now = clock.nanoTime();
        if (w != null) {
            if (w.version != v) {
                cmd.release();
                disconnect(w, "switched from " + w.version + " to " + v);
                return;
            }
            w.lastHeard = now;
            liveness.heard(w);
        }
        if (cmd instanceof MdpCommand.WorkerReady ready) {
            String name = ready.serviceName();
            int nameBytes = ready.service().readableBytes();
            cmd.release();
            if (w != null) {
                disconnect(w, "a second READY");
            } else if (MmiService.isInternal(name)) {
                disconnectUnknown(id, v, name, "a worker may not register the internal service " + name);
            } else if (nameBytes > settings.maxServiceNameBytes()) {
                disconnectUnknown(id, v, null, "service name longer than " + settings.maxServiceNameBytes() + " bytes");
            } else if (!services.containsKey(name) && services.size() >= settings.maxServices()) {
                disconnectUnknown(id, v, name, "the broker has " + services.size() + " services, the most it keeps");
            } else {
                register(id, v, name, now);
            }
        } else if (cmd instanceof MdpCommand.WorkerHeartbeat) {
            cmd.release();
            if (w == null) {
                disconnectUnknown(id, v, null, "HEARTBEAT before READY");
            }
        } else if (cmd instanceof MdpCommand.WorkerDisconnect) {
            cmd.release();
            if (w != null) {
                forget(w);
                event(MajordomoEvent.Type.WORKER_LEFT, w.hexId(), w.service.name, null);
            }
        } else if (cmd instanceof MdpCommand.WorkerRequest) {
            cmd.release();
            if (w == null) {
                disconnectUnknown(id, v, null, "REQUEST from a worker");
            } else {
                disconnect(w, "REQUEST from a worker");
            }
        } else if (cmd instanceof MdpCommand.WorkerReply reply) {
            onReply(w, id, cmd, reply.client(), reply.body(), false);
        } else if (cmd instanceof MdpCommand.WorkerPartial partial) {
            onReply(w, id, cmd, partial.client(), partial.body(), true);
        } else if (cmd instanceof MdpCommand.WorkerFinal fin) {
            onReply(w, id, cmd, fin.client(), fin.body(), false);
        } else {
            cmd.release();
            peerLog.warn("Majordomo broker: an unexpected command from worker {}", ByteBufUtil.hexDump(id.bytes()));
        }
    }

    /** REPLY, PARTIAL or FINAL from worker {@code w} (null if unknown). */
    private void onReply(Worker w, RoutingId id, MdpCommand cmd, ByteBuf client, ZmtpMessage body, boolean partial) {
        String what = cmd instanceof MdpCommand.WorkerReply ? "REPLY" : partial ? "PARTIAL" : "FINAL";
        if (w == null) {
            cmd.release();
            disconnectUnknown(id, cmd.version(), null, what + " before READY");
            return;
        }
        InFlight c = w.current;
        if (c == null) {
            cmd.release();
            disconnect(w, what + " with no request in progress");
            return;
        }
        if (!c.client.matches(client)) {
            String to = ByteBufUtil.hexDump(client);
            cmd.release();
            disconnect(w, what + " to client " + to + " while serving " + ByteBufUtil.hexDump(c.client.bytes()));
            return;
        }
        cmd.peer().release();
        forwardReply(w, c, client, body, partial);
    }

    /** Sends a worker's reply on to its client, in the client's version (ownership of the frames passes). */
    private void forwardReply(Worker w, InFlight c, ByteBuf client, ZmtpMessage msg, boolean partial) {
        Service s = w.service;
        if (c.version == MdpVersion.V0_2) {
            msg.addFirst(client);
            MdpProtocol.replyToClient(msg, MdpVersion.V0_2, !partial, MdpProtocol.constant(s.nameBytes));
            send(msg, partial ? "I: sending PARTIAL to client" : "I: sending FINAL to client");
        } else if (partial) {
            client.release();
            c.aggregate(msg, settings.maxAggregatedReplyBytes(), w, this);
        } else {
            ZmtpMessage reply = c.complete(msg, settings.maxAggregatedReplyBytes(), w, this);
            if (reply == null) {
                client.release();
            } else {
                reply.addFirst(client);
                MdpProtocol.replyToClient(reply, MdpVersion.V0_1, true, MdpProtocol.constant(s.nameBytes));
                send(reply, "I: sending REPLY to client");
            }
        }
        if (!partial) {
            w.current = null;
            c.release();
            idle(w);
        }
    }

    private void register(RoutingId id, MdpVersion v, String name, long now) {
        Service s = services.get(name);
        if (s == null) {
            s = new Service(name);
            services.put(name, s);
        }
        Worker w = new Worker(id, v, s);
        workers.put(id, w);
        w.registeredAt = now;
        w.lastHeard = now;
        liveness.heard(w);
        w.lastSent = now;
        heartbeatDue.heard(w);
        s.workers++;
        orphaned.remove(s);
        if (heartbeatTimer == null) {
            heartbeatTimer = clock.schedule(this::heartbeat, settings.heartbeat().interval());
        }
        if (log.isDebugEnabled()) {
            log.debug("worker {} ready for {} ({})", w.hexId(), FrameText.escape(name), v);
        }
        event(MajordomoEvent.Type.WORKER_READY, w.hexId(), name, v.toString());
        idle(w);
    }

    /** The worker waits for work: at the end of its service's LRU list, then dispatch. */
    private void idle(Worker w) {
        w.service.idle.add(w.id, w);
        dispatch(w.service);
    }

    /** Sends queued requests to idle workers while there are both (skipping gone peers). */
    private void dispatch(Service s) {
        while (!s.idle.isEmpty() && s.head != null && !closed) {
            QueuedRequest q = s.head;
            if (!socket.hasPeer(q.client.id)) {
                goneClient(q.client);
                continue;
            }
            Worker w = s.idle.poll();
            if (!socket.hasPeer(w.id)) {
                goneWorker(w);
                continue;
            }
            unqueue(q);
            sendRequest(w, q.client.id, q.version, expand(q));
        }
    }

    /** Sends {@code body} (ownership passes) from {@code client} to worker {@code w} as a REQUEST. */
    private void sendRequest(Worker w, RoutingId client, MdpVersion clientVersion, ZmtpMessage m) {
        w.current = new InFlight(client, clientVersion);
        sendToWorker(w, MdpProtocol.requestToWorker(w.id, w.version, client, m), "I: sending REQUEST to worker");
    }

    private void sendToWorker(Worker w, ZmtpMessage m, String what) {
        w.lastSent = clock.nanoTime();
        heartbeatDue.heard(w);
        send(m, what);
    }

    private void sendCommand(RoutingId id, MdpVersion v, WorkerCommand cmd) {
        send(MdpProtocol.toWorker(id, v, cmd), "I: sending " + cmd + " to worker");
    }

    /** Answers a known worker's unexpected command: DISCONNECT, then forget it. */
    private void disconnect(Worker w, String reason) {
        peerLog.warn("Majordomo broker disconnects worker {} ({}): {}", w.hexId(), FrameText.escape(w.service.name),
                FrameText.escape(reason));
        forget(w);
        sendCommand(w.id, w.version, WorkerCommand.DISCONNECT);
        event(MajordomoEvent.Type.WORKER_DISCONNECTED, w.hexId(), w.service.name, reason);
    }

    private void disconnectUnknown(RoutingId id, MdpVersion v, String service, String reason) {
        String hex = ByteBufUtil.hexDump(id.bytes());
        peerLog.warn("Majordomo broker disconnects worker {}: {}", hex, FrameText.escape(reason));
        sendCommand(id, v, WorkerCommand.DISCONNECT);
        event(MajordomoEvent.Type.WORKER_DISCONNECTED, hex, service, reason);
    }

    /** Removes a worker from every structure; a request it was serving is dropped. */
    private void forget(Worker w) {
        if (workers.remove(w.id) != w) {
            return;
        }
        liveness.remove(w);
        heartbeatDue.remove(w);
        Service s = w.service;
        s.idle.remove(w.id);
        s.workers--;
        if (w.current != null) {
            w.current.release();
            w.current = null;
        }
        if (s.workers == 0) {
            if (s.head == null) {
                services.remove(s.name);
            } else {
                markOrphaned(s, clock.nanoTime());
            }
        }
    }

    private void markOrphaned(Service s, long now) {
        if (orphaned.add(s)) {
            s.orphanedSince = now;
        }
    }

    // ------------------------------------------------------------------ peers gone

    /** A connection of the ROUTER closed: check every client and worker, in batches. */
    /**
     * The connection of the peer {@code id} closed: the client or worker it was is gone, unless a
     * new connection took the id over meanwhile.
     */
    private void peerGone(RoutingId id) {
        if (closed || socket.hasPeer(id)) {
            return;
        }
        Client c = clients.get(id);
        if (c != null) {
            goneClient(c);
        }
        Worker w = workers.get(id);
        if (w != null) {
            goneWorker(w);
        }
    }

    /** A connection closed without a routing id to say whose: every client and worker is checked. */
    private void peerGone() {
        if (closed) {
            return;
        }
        if (sweep != null) {
            sweepAgain = true;
            return;
        }
        if (clients.isEmpty() && workers.isEmpty()) {
            return;
        }
        sweep = new ArrayList<>(clients.size() + workers.size());
        sweep.addAll(clients.values());
        sweep.addAll(workers.values());
        eventLoop().execute(this::sweepBatch);
    }

    private void sweepBatch() {
        if (closed || sweep == null) {
            sweep = null;
            return;
        }
        for (int n = 0; n < SWEEP_BATCH && !sweep.isEmpty(); n++) {
            Object o = sweep.remove(sweep.size() - 1);
            if (o instanceof Client c) {
                if (clients.get(c.id) == c && !socket.hasPeer(c.id)) {
                    goneClient(c);
                }
            } else {
                Worker w = (Worker) o;
                if (workers.get(w.id) == w && !socket.hasPeer(w.id)) {
                    goneWorker(w);
                }
            }
        }
        if (!sweep.isEmpty()) {
            eventLoop().execute(this::sweepBatch);
            return;
        }
        sweep = null;
        if (sweepAgain) {
            sweepAgain = false;
            peerGone();
        }
    }

    private void goneClient(Client c) {
        int n = dropClient(c);
        String hex = ByteBufUtil.hexDump(c.id.bytes());
        if (log.isDebugEnabled()) {
            log.debug("client {} is gone: dropped its {} queued request(s)", hex, n);
        }
        event(MajordomoEvent.Type.CLIENT_GONE, hex, null, n + " queued request(s) dropped");
    }

    private void goneWorker(Worker w) {
        if (log.isDebugEnabled()) {
            log.debug("worker {} ({}) is gone: its connection closed", w.hexId(), FrameText.escape(w.service.name));
        }
        forget(w);
        event(MajordomoEvent.Type.WORKER_LEFT, w.hexId(), w.service.name, "connection closed");
    }

    // ------------------------------------------------------------------ timer

    /**
     * Every heartbeat interval: forget workers silent for the expiry (not on a tick that ran late,
     * when the loop itself stalled and has not read what they sent), expire requests.
     */
    private void tick(boolean silenceCounts) {
        if (closed) {
            return;
        }
        if (silenceCounts) {
            liveness.expireInBatches(PeerLiveness.DEFAULT_BATCH, w -> {
                peerLog.warn("Majordomo broker: worker {} ({}) expired, silent for {} ms", w.hexId(),
                        FrameText.escape(w.service.name), (clock.nanoTime() - w.lastHeard) / 1_000_000);
                forget(w);
                event(MajordomoEvent.Type.WORKER_EXPIRED, w.hexId(), w.service.name, null);
            }, () -> { });
        }
        if (!expiryPending) {
            expireRequests();
        }
    }

    /**
     * Sends HEARTBEAT to every worker nothing was sent to for an interval, then sets the timer for
     * the next one due: a worker's first HEARTBEAT comes one interval after its READY, the next
     * ones an interval after whatever was last sent to it.
     */
    private void heartbeat() {
        heartbeatTimer = null;
        if (closed) {
            return;
        }
        long now = clock.nanoTime();
        List<Worker> due = new ArrayList<>();
        heartbeatDue.expire(Integer.MAX_VALUE, due::add);
        for (Worker d : due) {
            d.lastSent = now;
            heartbeatDue.heard(d);
            send(MdpProtocol.toWorker(d.id, d.version, WorkerCommand.HEARTBEAT), "I: sending HEARTBEAT to worker");
        }
        Iterator<Worker> first = heartbeatDue.peers().iterator();
        if (first.hasNext()) {
            Worker w = first.next();
            heartbeatTimer = clock.schedule(this::heartbeat, java.time.Duration.ofNanos(w.lastSent + intervalNanos - now));
        }
    }

    /** Expires requests of services without workers, at most {@code expiryBatch} per loop task. */
    private void expireRequests() {
        expiryPending = false;
        if (closed) {
            return;
        }
        long now = clock.nanoTime();
        int budget = settings.expiryBatch();
        int expired = 0;
        for (Iterator<Service> it = orphaned.iterator(); it.hasNext() && budget > 0; ) {
            Service s = it.next();
            QueuedRequest q;
            while (budget > 0 && (q = s.head) != null
                    && now - Math.max(q.queuedAt, s.orphanedSince) >= requestExpiryNanos) {
                budget--;
                expired++;
                String client = ByteBufUtil.hexDump(q.client.id.bytes());
                s.unlink(q);
                Client c = q.client;
                c.unlink(q);
                if (c.head == null) {
                    clients.remove(c.id);
                }
                queuedBytes -= q.size;
                queuedCount--;
                event(MajordomoEvent.Type.REQUEST_EXPIRED, client, s.name, null);
            }
            if (s.head == null) {
                it.remove();
                if (s.workers == 0) {
                    services.remove(s.name);
                }
            }
        }
        if (expired > 0) {
            peerLog.warn("Majordomo broker: {} request(s) expired, no worker within {} ms", expired,
                    requestExpiryNanos / 1_000_000);
        }
        if (budget == 0) {
            expiryPending = true;
            eventLoop().execute(this::expireRequests);
        }
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
        if (closed || workers.isEmpty()) {
            return 0;
        }
        List<Worker> away = new ArrayList<>();
        for (Worker w : workers.values()) {
            if (w.current == null && w.registeredAt - registeredBy <= 0) {
                away.add(w);
            }
        }
        for (Worker w : away) {
            forget(w);
            sendCommand(w.id, w.version, WorkerCommand.DISCONNECT);
            event(MajordomoEvent.Type.WORKER_DISCONNECTED, w.hexId(), w.service.name, reason);
        }
        return away.size();
    }

    /** The broker's clock (on its loop). */
    LoopClock loopClock() {
        return clock;
    }

    // ------------------------------------------------------------------ inspection

    /** The number of registered workers (all services). */
    public int workerCount() {
        return onLoop(workers::size);
    }

    /** The number of workers registered for a service. */
    public int workerCount(String service) {
        return onLoop(() -> workersOf(service));
    }

    /** The number of requests waiting for a worker of a service. */
    public int queuedRequests(String service) {
        return onLoop(() -> {
            Service s = services.get(service);
            return s == null ? 0 : s.count;
        });
    }

    /** The number of requests waiting, all services. */
    public int queuedRequests() {
        return onLoop(() -> queuedCount);
    }

    /** The bytes the queued requests are counted for (bodies plus {@value #REQUEST_OVERHEAD} each). */
    public long queuedBytes() {
        return onLoop(() -> queuedBytes);
    }

    /** The number of clients that have requests queued. */
    public int clientCount() {
        return onLoop(clients::size);
    }

    /** The names of the services known (with workers or queued requests). */
    public List<String> services() {
        return onLoop(() -> new ArrayList<>(services.keySet()));
    }

    private <T> T onLoop(Callable<T> c) {
        return LoopCalls.onLoop(eventLoop(), c);
    }

    // ------------------------------------------------------------------ closing

    /**
     * Stops the broker: sends DISCONNECT to every worker (so they reconnect and register again
     * when a broker is back), drops queued requests, and closes the socket with its linger.
     */
    @Override
    protected CompletionStage<Void> onClose() {
        if (!closed) {
            for (Worker w : workers.values()) {
                sendCommand(w.id, w.version, WorkerCommand.DISCONNECT);
            }
            releaseAll();
        }
        socket.close(settings.socketOptions().linger());
        return Futures.of(socket.closeFuture());
    }

    /** Forgets every worker and drops every queued request (on the loop). */
    private void releaseAll() {
        closed = true;
        ticker.stop();
        if (heartbeatTimer != null) {
            heartbeatTimer.cancel();
            heartbeatTimer = null;
        }
        for (Worker w : workers.values()) {
            if (w.current != null) {
                w.current.release();
                w.current = null;
            }
        }
        workers.clear();
        services.clear();
        clients.clear();
        orphaned.clear();
        sweep = null;
        queuedBytes = 0;
        queuedCount = 0;
    }

    // ------------------------------------------------------------------ state

    private static final class Service {
        final String name;
        final byte[] nameBytes;
        /** Idle workers, the one idle longest first (the kit's LRU by routing id). */
        final ReadyWorkers<Worker> idle = new ReadyWorkers<>();
        QueuedRequest head;
        QueuedRequest tail;
        int count;
        long bytes;
        int workers;
        long orphanedSince;

        Service(String name) {
            this.name = name;
            this.nameBytes = name.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }

        void append(QueuedRequest q) {
            q.sPrev = tail;
            if (tail == null) {
                head = q;
            } else {
                tail.sNext = q;
            }
            tail = q;
            count++;
            bytes += q.size;
        }

        void unlink(QueuedRequest q) {
            if (q.sPrev == null) {
                head = q.sNext;
            } else {
                q.sPrev.sNext = q.sNext;
            }
            if (q.sNext == null) {
                tail = q.sPrev;
            } else {
                q.sNext.sPrev = q.sPrev;
            }
            q.sPrev = null;
            q.sNext = null;
            count--;
            bytes -= q.size;
        }
    }

    /** A client with requests queued, and its queued requests in order. */
    private static final class Client {
        final RoutingId id;
        QueuedRequest head;
        QueuedRequest tail;
        int count;

        Client(RoutingId id) {
            this.id = id;
        }

        void append(QueuedRequest q) {
            q.cPrev = tail;
            if (tail == null) {
                head = q;
            } else {
                tail.cNext = q;
            }
            tail = q;
            count++;
        }

        void unlink(QueuedRequest q) {
            if (q.cPrev == null) {
                head = q.cNext;
            } else {
                q.cPrev.cNext = q.cNext;
            }
            if (q.cNext == null) {
                tail = q.cPrev;
            } else {
                q.cNext.cPrev = q.cPrev;
            }
            q.cPrev = null;
            q.cNext = null;
            count--;
        }
    }

    private static final class Worker {
        final RoutingId id;
        final MdpVersion version;
        final Service service;
        long registeredAt;
        long lastHeard;
        long lastSent;
        InFlight current;

        Worker(RoutingId id, MdpVersion version, Service service) {
            this.id = id;
            this.version = version;
            this.service = service;
        }

        String hexId() {
            return ByteBufUtil.hexDump(id.bytes());
        }
    }

    /**
     * A queued request: its body as one heap array (see {@link #compact}), in its service's queue
     * and its client's list at once (intrusive links, so either can drop it in O(1)).
     */
    private static final class QueuedRequest {
        final Client client;
        final Service service;
        final MdpVersion version;
        final long queuedAt;
        final byte[] body;
        final int frames;
        final long size;
        QueuedRequest sPrev;
        QueuedRequest sNext;
        QueuedRequest cPrev;
        QueuedRequest cNext;

        QueuedRequest(Client client, Service service, MdpVersion version, long queuedAt, byte[] body, int frames,
                      long size) {
            this.client = client;
            this.service = service;
            this.version = version;
            this.queuedAt = queuedAt;
            this.body = body;
            this.frames = frames;
            this.size = size;
        }
    }

    /** The request a worker is serving: which client, in which version, and a 0.1 aggregate. */
    private static final class InFlight {
        final RoutingId client;
        final MdpVersion version;
        ZmtpMessage aggregate;
        long aggregateBytes;
        boolean overflow;

        InFlight(RoutingId client, MdpVersion version) {
            this.client = client;
            this.version = version;
        }

        /** Adds a PARTIAL's body frames (ownership passes) to the reply joined for a 0.1 client. */
        void aggregate(ZmtpMessage body, long limit, Worker w, MajordomoBroker broker) {
            if (overflow) {
                body.release();
                return;
            }
            long n = body.byteSize();
            if (aggregateBytes + n > limit) {
                overflow = true;
                body.release();
                release();
                peerLog.warn("Majordomo broker drops the streamed reply of worker {} ({}) for MDP/0.1 client {}: over {} bytes",
                        w.hexId(), FrameText.escape(w.service.name), ByteBufUtil.hexDump(client.bytes()), limit);
                broker.event(MajordomoEvent.Type.REPLY_DROPPED, ByteBufUtil.hexDump(client.bytes()), w.service.name,
                        "streamed reply over " + limit + " bytes");
                return;
            }
            aggregateBytes += n;
            if (aggregate == null) {
                aggregate = body;
                return;
            }
            while (!body.isEmpty()) {
                aggregate.add(body.removeFirst());
            }
            body.release();
        }

        /** The whole reply for a 0.1 client (ownership of {@code last} passes), or null if dropped. */
        ZmtpMessage complete(ZmtpMessage last, long limit, Worker w, MajordomoBroker broker) {
            if (overflow) {
                last.release();
                return null;
            }
            if (aggregate == null) {
                return last;
            }
            aggregate(last, limit, w, broker);
            if (overflow) {
                return null;
            }
            return takeAggregate();
        }

        private ZmtpMessage takeAggregate() {
            ZmtpMessage all = aggregate;
            aggregate = null;
            return all;
        }

        void release() {
            if (aggregate != null) {
                aggregate.release();
                aggregate = null;
            }
        }
    }
}
