package io.zmtp.patterns.majordomo;

import io.zmtp.patterns.EventReporter;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import io.zmtp.patterns.majordomo.MdpVersion.ClientCommand;
import io.zmtp.patterns.majordomo.MdpVersion.WorkerCommand;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Consumer;

import static io.zmtp.patterns.majordomo.MdpProtocol.code;
import static io.zmtp.patterns.majordomo.MdpProtocol.codeFrame;
import static io.zmtp.patterns.majordomo.MdpProtocol.constant;
import static io.zmtp.patterns.majordomo.MdpProtocol.frameEquals;
import static io.zmtp.patterns.majordomo.MdpProtocol.string;

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
 * {@link MajordomoBrokerSettings#heartbeatInterval() interval} the timer sends HEARTBEAT to each
 * worker nothing was sent to for half an interval, and forgets workers silent for interval x
 * liveness, busy or idle: 7/MDP and 18/MDP require heartbeats both ways at all times, and a worker
 * that died mid-request must not stay registered. {@link MajordomoWorker} heartbeats while its
 * handler runs; a worker built like the guide's single-threaded mdwrkapi (which the guide's broker
 * never expires while busy) must answer within the heartbeat expiry. A worker lost mid-request
 * loses that request: the client's retry brings it back.
 *
 * <p>One ROUTER serves both sub-protocols; {@link #bind} may be called for several endpoints (a
 * frontend and a backend address) on that one socket.
 *
 * <h2>Scale</h2>
 * Workers are found by routing id in a hash map; each service keeps its idle workers in a
 * {@link RecencyList} (LRU, O(1)); the workers are also kept in two lists ordered by when they were
 * last heard from and last sent to, so each timer tick looks only at the workers that are due.
 * Requests wait for a service without workers for at most
 * {@link MajordomoBrokerSettings#requestExpiry()}; the tick looks only at services in that state.
 */
public final class MajordomoBroker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MajordomoBroker.class);

    private final MajordomoBrokerSettings settings;
    private final ZmtpSocket socket;
    private final long intervalNanos;
    private final long workerExpiryNanos;
    private final long requestExpiryNanos;
    private final MessageTracer tracer;
    private final EventReporter<MajordomoEvent> events;

    private final Map<Address, Worker> workers = new HashMap<>();
    private final Map<String, Service> services = new HashMap<>();
    private final RecencyList<Worker> byLastHeard = new RecencyList<>();
    private final RecencyList<Worker> byLastSent = new RecencyList<>();
    /** Services that have queued requests and no worker: their requests age. */
    private final LinkedHashSet<Service> orphaned = new LinkedHashSet<>();
    private final ScheduledFuture<?> ticker;
    private boolean closed;

    /** A broker with the default settings; bind it to start serving. */
    public MajordomoBroker(ZmtpContext ctx) {
        this(ctx, MajordomoBrokerSettings.DEFAULTS);
    }

    public MajordomoBroker(ZmtpContext ctx, MajordomoBrokerSettings settings) {
        this.settings = settings;
        this.intervalNanos = settings.heartbeatInterval().toNanos();
        this.workerExpiryNanos = settings.heartbeatExpiry().toNanos();
        this.requestExpiryNanos = settings.requestExpiry().toNanos();
        this.tracer = settings.tracer();
        this.events = new EventReporter<>(settings.listener(), log, "Majordomo broker");
        this.socket = ctx.socket(SocketType.ROUTER, settings.socketOptions());
        socket.onMessage(this::onMessage);
        ticker = socket.scheduleAtFixedRate(this::tick, settings.heartbeatInterval(), settings.heartbeatInterval());
        // If the socket closes under the broker (its context closed first), let go of what it holds.
        socket.closeFuture().addListener(f -> releaseAll());
    }

    /** Binds an endpoint (may be called for several); the future gives the endpoint bound. */
    public Future<String> bind(String endpoint) {
        return socket.bind(endpoint);
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
        try {
            if (tracer != null) {
                tracer.trace("I: received message:", msg);
            }
            if (msg.size() < 3) {
                invalid(msg, "only " + msg.size() + " frame(s) after the routing id");
                return;
            }
            MdpVersion v;
            int h;
            if (!msg.frame(1).isReadable()) {
                v = MdpVersion.V0_1;
                h = 2;
            } else {
                v = MdpVersion.V0_2;
                h = 1;
            }
            ByteBuf header = msg.frame(h);
            if (frameEquals(header, v.clientHeaderBytes())) {
                fromClient(msg, v, h + 1);
            } else if (frameEquals(header, v.workerHeaderBytes())) {
                fromWorker(msg, v, h + 1);
            } else if (v == MdpVersion.V0_1 && (frameEquals(header, MdpVersion.V0_2.clientHeaderBytes())
                    || frameEquals(header, MdpVersion.V0_2.workerHeaderBytes()))) {
                invalid(msg, "an MDP/0.2 header after an empty frame (0.2 has no empty frame)");
            } else if (v == MdpVersion.V0_2 && (frameEquals(header, MdpVersion.V0_1.clientHeaderBytes())
                    || frameEquals(header, MdpVersion.V0_1.workerHeaderBytes()))) {
                invalid(msg, "an MDP/0.1 header without the empty frame before it");
            } else {
                invalid(msg, "unknown protocol header " + MessageDump.frameText(header));
            }
        } catch (RuntimeException e) {
            log.warn("broker failed on a message", e);
            if (msg.refCnt() > 0) {
                msg.release();
            }
        }
    }

    private void invalid(ZmtpMessage msg, String reason) {
        String from = msg.size() > 0 ? ByteBufUtil.hexDump(msg.frame(0)) : "?";
        log.warn("dropping an invalid message from {}: {} ({})", from, reason, msg);
        msg.release();
        event(MajordomoEvent.Type.INVALID_MESSAGE, from, null, reason);
    }

    // ------------------------------------------------------------------ clients

    /** A client message; {@code i} indexes the frame after the header. */
    private void fromClient(ZmtpMessage msg, MdpVersion v, int i) {
        if (v == MdpVersion.V0_2) {
            int c = msg.size() > i ? code(msg.frame(i)) : -1;
            if (c != ClientCommand.REQUEST.code()) {
                invalid(msg, msg.size() > i ? "client command " + MessageDump.frameText(msg.frame(i))
                        + " is not REQUEST (01)" : "no client command frame");
                return;
            }
            i++;
        }
        if (msg.size() < i + 2) {
            invalid(msg, "a request needs a service frame and at least one body frame");
            return;
        }
        String name = string(msg.frame(i));
        // Keep client-id | body...: drop the frames from after the id up to the service.
        ByteBuf client = msg.removeFirst();
        for (int k = 0; k < i; k++) {
            msg.dropFirst();
        }
        msg.addFirst(client);
        if (MmiService.isInternal(name)) {
            answerMmi(msg, v, name);
            return;
        }
        Service s = services.get(name);
        if (s == null) {
            s = new Service(name);
            services.put(name, s);
        }
        if (s.requests.size() >= settings.maxQueuedRequests()) {
            log.warn("service {} has {} requests queued: dropping a new one", name, s.requests.size());
            event(MajordomoEvent.Type.REQUEST_REJECTED, ByteBufUtil.hexDump(msg.frame(0)), name,
                    "queue full (" + s.requests.size() + ")");
            msg.release();
            return;
        }
        long now = System.nanoTime();
        s.requests.add(new Request(msg, v, now));
        if (s.workers == 0) {
            markOrphaned(s, now);
        } else {
            dispatch(s);
        }
    }

    private void answerMmi(ZmtpMessage msg, MdpVersion v, String name) {
        String argument = string(msg.frame(1));
        String answer = MmiService.answer(name, argument, this::workersOf);
        ByteBuf client = msg.removeFirst();
        msg.release();
        ZmtpMessage reply = ZmtpMessage.newMessage().add(client).add(answer);
        toClient(reply, v, true, MdpProtocol.text(name));
        event(MajordomoEvent.Type.MMI_ANSWERED, null, name, argument + " -> " + answer);
        send(reply, "I: sending MMI reply to client");
    }

    private int workersOf(String service) {
        Service s = services.get(service);
        return s == null ? 0 : s.workers;
    }

    /**
     * Reframes {@code client-id | body...} (in place) as a reply in the client's version:
     * {@code client-id | "" | MDPC01 | service | body} or {@code client-id | MDPC02 | 02/03 |
     * service | body}.
     */
    private static void toClient(ZmtpMessage m, MdpVersion v, boolean fin, ByteBuf serviceFrame) {
        ByteBuf client = m.removeFirst();
        m.addFirst(serviceFrame);
        if (v == MdpVersion.V0_1) {
            m.addFirst(constant(v.clientHeaderBytes()));
            m.addFirst(Unpooled.EMPTY_BUFFER);
        } else {
            m.addFirst(codeFrame((fin ? ClientCommand.FINAL : ClientCommand.PARTIAL).code()));
            m.addFirst(constant(v.clientHeaderBytes()));
        }
        m.addFirst(client);
    }

    // ------------------------------------------------------------------ workers

    /** A worker message; {@code i} indexes the command frame. */
    private void fromWorker(ZmtpMessage msg, MdpVersion v, int i) {
        if (msg.size() <= i) {
            invalid(msg, "no worker command frame");
            return;
        }
        WorkerCommand cmd = v.workerCommand(code(msg.frame(i)));
        if (cmd == null) {
            invalid(msg, "unknown " + v + " worker command " + MessageDump.frameText(msg.frame(i)));
            return;
        }
        int args = msg.size() - i - 1;
        switch (cmd) {
            case READY:
                if (args != 1) {
                    invalid(msg, "READY takes exactly one service frame, not " + args);
                    return;
                }
                break;
            case HEARTBEAT:
            case DISCONNECT:
                if (args != 0) {
                    invalid(msg, cmd + " takes no frames, not " + args);
                    return;
                }
                break;
            case REPLY:
            case PARTIAL:
            case FINAL:
            case REQUEST:
                if (args < 3 || msg.frame(i + 2).isReadable()) {
                    invalid(msg, cmd + " needs a client address, an empty frame and at least one body frame");
                    return;
                }
                break;
            default:
                break;
        }
        Address address = new Address(ByteBufUtil.getBytes(msg.frame(0)));
        Worker w = workers.get(address);
        long now = System.nanoTime();
        if (w != null) {
            if (w.version != v) {
                msg.release();
                disconnect(w, "switched from " + w.version + " to " + v);
                return;
            }
            w.lastHeard = now;
            byLastHeard.touch(w.heardNode);
        }
        switch (cmd) {
            case READY: {
                String name = string(msg.frame(i + 1));
                msg.release();
                if (w != null) {
                    disconnect(w, "a second READY");
                } else if (MmiService.isInternal(name)) {
                    disconnectUnknown(address, v, name, "a worker may not register the internal service " + name);
                } else {
                    register(address, v, name, now);
                }
                return;
            }
            case HEARTBEAT:
                msg.release();
                if (w == null) {
                    disconnectUnknown(address, v, null, "HEARTBEAT before READY");
                }
                return;
            case DISCONNECT:
                msg.release();
                if (w != null) {
                    forget(w);
                    event(MajordomoEvent.Type.WORKER_LEFT, w.hexId(), w.service.name, null);
                }
                return;
            case REQUEST:
                msg.release();
                if (w == null) {
                    disconnectUnknown(address, v, null, "REQUEST from a worker");
                } else {
                    disconnect(w, "REQUEST from a worker");
                }
                return;
            default:
                break;
        }
        // REPLY, PARTIAL or FINAL
        if (w == null) {
            msg.release();
            disconnectUnknown(address, v, null, cmd + " before READY");
            return;
        }
        InFlight c = w.current;
        if (c == null) {
            msg.release();
            disconnect(w, cmd + " with no request in progress");
            return;
        }
        if (!frameEquals(msg.frame(i + 1), c.client)) {
            String to = ByteBufUtil.hexDump(msg.frame(i + 1));
            msg.release();
            disconnect(w, cmd + " to client " + to + " while serving " + ByteBufUtil.hexDump(c.client));
            return;
        }
        forwardReply(w, c, msg, cmd == WorkerCommand.PARTIAL, i);
    }

    /** Sends a worker's reply on to its client, in the client's version. */
    private void forwardReply(Worker w, InFlight c, ZmtpMessage msg, boolean partial, int i) {
        for (int k = 0; k <= i; k++) {
            msg.dropFirst();
        }
        ByteBuf client = msg.removeFirst();
        msg.dropFirst();
        // msg now holds the body frames
        Service s = w.service;
        if (c.version == MdpVersion.V0_2) {
            msg.addFirst(client);
            toClient(msg, MdpVersion.V0_2, !partial, constant(s.nameBytes));
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
                toClient(reply, MdpVersion.V0_1, true, constant(s.nameBytes));
                send(reply, "I: sending REPLY to client");
            }
        }
        if (!partial) {
            w.current = null;
            c.release();
            idle(w);
        }
    }

    private void register(Address address, MdpVersion v, String name, long now) {
        Service s = services.get(name);
        if (s == null) {
            s = new Service(name);
            services.put(name, s);
        }
        Worker w = new Worker(address, v, s);
        workers.put(address, w);
        w.lastHeard = now;
        byLastHeard.touch(w.heardNode);
        w.lastSent = now;
        byLastSent.touch(w.sentNode);
        s.workers++;
        orphaned.remove(s);
        if (log.isDebugEnabled()) {
            log.debug("worker {} ready for {} ({})", w.hexId(), name, v);
        }
        event(MajordomoEvent.Type.WORKER_READY, w.hexId(), name, v.toString());
        idle(w);
    }

    /** The worker waits for work: at the end of its service's LRU list, then dispatch. */
    private void idle(Worker w) {
        w.service.idle.touch(w.idleNode);
        dispatch(w.service);
    }

    private void dispatch(Service s) {
        while (!s.idle.isEmpty() && !s.requests.isEmpty()) {
            Worker w = s.idle.pollFirst();
            Request r = s.requests.poll();
            sendRequest(w, r);
        }
    }

    private void sendRequest(Worker w, Request r) {
        ZmtpMessage m = r.message;
        ByteBuf client = m.removeFirst();
        w.current = new InFlight(ByteBufUtil.getBytes(client), r.version);
        MdpVersion v = w.version;
        m.addFirst(Unpooled.EMPTY_BUFFER);
        m.addFirst(client);
        m.addFirst(codeFrame(v.code(WorkerCommand.REQUEST)));
        m.addFirst(constant(v.workerHeaderBytes()));
        if (v.leadingEmptyFrame()) {
            m.addFirst(Unpooled.EMPTY_BUFFER);
        }
        m.addFirst(Unpooled.wrappedBuffer(w.address.bytes));
        sendToWorker(w, m, "I: sending REQUEST to worker");
    }

    private void sendToWorker(Worker w, ZmtpMessage m, String what) {
        w.lastSent = System.nanoTime();
        byLastSent.touch(w.sentNode);
        send(m, what);
    }

    private void sendCommand(byte[] address, MdpVersion v, WorkerCommand cmd) {
        ZmtpMessage m = MdpProtocol.workerCommand(v, cmd);
        m.addFirst(Unpooled.wrappedBuffer(address));
        send(m, "I: sending " + cmd + " to worker");
    }

    /** Answers a known worker's unexpected command: DISCONNECT, then forget it. */
    private void disconnect(Worker w, String reason) {
        log.info("disconnecting worker {} ({}): {}", w.hexId(), w.service.name, reason);
        forget(w);
        sendCommand(w.address.bytes, w.version, WorkerCommand.DISCONNECT);
        event(MajordomoEvent.Type.WORKER_DISCONNECTED, w.hexId(), w.service.name, reason);
    }

    private void disconnectUnknown(Address address, MdpVersion v, String service, String reason) {
        String id = address.hex();
        log.info("disconnecting worker {}: {}", id, reason);
        sendCommand(address.bytes, v, WorkerCommand.DISCONNECT);
        event(MajordomoEvent.Type.WORKER_DISCONNECTED, id, service, reason);
    }

    /** Removes a worker from every structure; a request it was serving is dropped. */
    private void forget(Worker w) {
        workers.remove(w.address);
        byLastHeard.remove(w.heardNode);
        byLastSent.remove(w.sentNode);
        Service s = w.service;
        s.idle.remove(w.idleNode);
        s.workers--;
        if (w.current != null) {
            w.current.release();
            w.current = null;
        }
        if (s.workers == 0) {
            if (s.requests.isEmpty()) {
                services.remove(s.name);
            } else {
                markOrphaned(s, System.nanoTime());
            }
        }
    }

    private void markOrphaned(Service s, long now) {
        if (orphaned.add(s)) {
            s.orphanedSince = now;
        }
    }

    // ------------------------------------------------------------------ timer

    /** Every heartbeat interval: expire silent workers, heartbeat the others, expire requests. */
    private void tick() {
        if (closed) {
            return;
        }
        long now = System.nanoTime();
        Worker w;
        while ((w = byLastHeard.first()) != null && now - w.lastHeard >= workerExpiryNanos) {
            log.info("worker {} ({}) expired: silent for {} ms", w.hexId(), w.service.name,
                    (now - w.lastHeard) / 1_000_000);
            forget(w);
            event(MajordomoEvent.Type.WORKER_EXPIRED, w.hexId(), w.service.name, null);
        }
        long due = Math.max(1, intervalNanos / 2);
        while ((w = byLastSent.first()) != null && now - w.lastSent >= due) {
            ZmtpMessage m = MdpProtocol.workerCommand(w.version, WorkerCommand.HEARTBEAT);
            m.addFirst(Unpooled.wrappedBuffer(w.address.bytes));
            w.lastSent = now;
            byLastSent.touch(w.sentNode);
            send(m, "I: sending HEARTBEAT to worker");
        }
        for (Iterator<Service> it = orphaned.iterator(); it.hasNext(); ) {
            Service s = it.next();
            Request r;
            while ((r = s.requests.peek()) != null && now - Math.max(r.queuedAt, s.orphanedSince) >= requestExpiryNanos) {
                s.requests.poll();
                String client = ByteBufUtil.hexDump(r.message.frame(0));
                r.message.release();
                log.info("request from {} for {} expired: no worker within {} ms", client, s.name,
                        requestExpiryNanos / 1_000_000);
                event(MajordomoEvent.Type.REQUEST_EXPIRED, client, s.name, null);
            }
            if (s.requests.isEmpty()) {
                it.remove();
                if (s.workers == 0) {
                    services.remove(s.name);
                }
            }
        }
    }

    // ------------------------------------------------------------------ sending

    private void send(ZmtpMessage m, String what) {
        if (tracer != null) {
            tracer.trace(what, m);
        }
        try {
            if (!socket.trySend(m)) {
                log.warn("broker socket refused a message: dropped");
                m.release();
            }
        } catch (RuntimeException e) {
            log.debug("broker could not send: {}", e.toString());
            m.release();
        }
    }

    private void event(MajordomoEvent.Type type, String peer, String service, String detail) {
        events.report(() -> new MajordomoEvent(type, peer, service, detail));
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
            return s == null ? 0 : s.requests.size();
        });
    }

    /** The names of the services known (with workers or queued requests). */
    public List<String> services() {
        return onLoop(() -> new ArrayList<>(services.keySet()));
    }

    private <T> T onLoop(Callable<T> c) {
        return LoopCalls.onLoop(socket.eventLoop(), c);
    }

    // ------------------------------------------------------------------ closing

    /**
     * Stops the broker: sends DISCONNECT to every worker (so they reconnect and register again
     * when a broker is back), drops queued requests, and closes the socket with its linger.
     */
    public Future<Void> closeAsync() {
        LoopCalls.run(socket.eventLoop(), () -> {
            if (closed) {
                return;
            }
            for (Worker w : workers.values()) {
                sendCommand(w.address.bytes, w.version, WorkerCommand.DISCONNECT);
            }
            releaseAll();
            socket.close(settings.socketOptions().linger());
        });
        return socket.closeFuture();
    }

    /** Forgets every worker and drops every queued request (on the loop). */
    private void releaseAll() {
        closed = true;
        ticker.cancel(false);
        for (Worker w : workers.values()) {
            if (w.current != null) {
                w.current.release();
                w.current = null;
            }
        }
        workers.clear();
        for (Service s : services.values()) {
            Request r;
            while ((r = s.requests.poll()) != null) {
                r.message.release();
            }
        }
        services.clear();
        orphaned.clear();
    }

    @Override
    public void close() {
        closeAsync().awaitUninterruptibly(settings.socketOptions().linger().toMillis() + 5000);
    }

    // ------------------------------------------------------------------ state

    /** A routing id as a hash key. */
    static final class Address {
        final byte[] bytes;
        private final int hash;

        Address(byte[] bytes) {
            this.bytes = bytes;
            this.hash = Arrays.hashCode(bytes);
        }

        String hex() {
            return ByteBufUtil.hexDump(bytes);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Address && ((Address) o).hash == hash && Arrays.equals(((Address) o).bytes, bytes);
        }
    }

    private static final class Service {
        final String name;
        final byte[] nameBytes;
        final ArrayDeque<Request> requests = new ArrayDeque<>();
        final RecencyList<Worker> idle = new RecencyList<>();
        int workers;
        long orphanedSince;

        Service(String name) {
            this.name = name;
            this.nameBytes = name.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    private static final class Worker {
        final Address address;
        final MdpVersion version;
        final Service service;
        final RecencyList.Node<Worker> heardNode = new RecencyList.Node<>(this);
        final RecencyList.Node<Worker> sentNode = new RecencyList.Node<>(this);
        final RecencyList.Node<Worker> idleNode = new RecencyList.Node<>(this);
        long lastHeard;
        long lastSent;
        InFlight current;

        Worker(Address address, MdpVersion version, Service service) {
            this.address = address;
            this.version = version;
            this.service = service;
        }

        String hexId() {
            return address.hex();
        }
    }

    /** A queued request: {@code client-id | body...}, with the client's version. */
    private static final class Request {
        final ZmtpMessage message;
        final MdpVersion version;
        final long queuedAt;

        Request(ZmtpMessage message, MdpVersion version, long queuedAt) {
            this.message = message;
            this.version = version;
            this.queuedAt = queuedAt;
        }
    }

    /** The request a worker is serving: which client, in which version, and a 0.1 aggregate. */
    private static final class InFlight {
        final byte[] client;
        final MdpVersion version;
        ZmtpMessage aggregate;
        long aggregateBytes;
        boolean overflow;

        InFlight(byte[] client, MdpVersion version) {
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
                log.warn("dropping the streamed reply of worker {} ({}) for MDP/0.1 client {}: over {} bytes",
                        w.hexId(), w.service.name, ByteBufUtil.hexDump(client), limit);
                broker.event(MajordomoEvent.Type.REPLY_DROPPED, ByteBufUtil.hexDump(client), w.service.name,
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
