package io.zmtp.patterns.majordomo;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.zmtp.patterns.kit.LoopClock;
import io.zmtp.patterns.kit.PeerLiveness;
import io.zmtp.patterns.majordomo.BrokerService.Worker;
import io.zmtp.patterns.majordomo.MdpVersion.WorkerCommand;
import io.zmtp.socket.RoutingId;
import io.zmtp.wire.FrameText;
import io.zmtp.wire.PeerFailureLog;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The broker's workers: what they say (every worker command), and the table of registered workers
 * (found by routing id, the idle ones in their service's least-recently-used order).
 *
 * <p>A worker registers with READY. A valid but unexpected command (a second READY; a reply, a
 * HEARTBEAT or a REQUEST before READY; a reply with no request in progress or to another client;
 * a change of version; READY for an {@code mmi.} service, with a service name over the limit, or
 * for one service too many) is answered with DISCONNECT and the worker is forgotten. Any command
 * counts as a heartbeat. A reply goes on to its client in the client's version
 * ({@link InFlightRequest}); after the last one the worker is idle again. A worker forgotten
 * mid-request (it left, expired, or was disconnected) loses that request: the client's retry brings
 * it back.
 *
 * <p>The workers' liveness is the broker's {@link PeerLiveness}: the table tells it what each
 * worker said ({@code heard}) and what was sent to it ({@code sent}; MDP wants a HEARTBEAT an
 * interval after anything was last sent to a worker, so the first one an interval after READY);
 * it hands back the workers silent for the expiry ({@link #expired}) and those due a HEARTBEAT
 * ({@link #heartbeat}). Every operation is O(1) but {@link #sendAway}. Used on the broker's loop
 * only.
 */
final class WorkerTable {
    /** What the table needs of the broker. */
    interface Owner {
        /** Sends on the broker's socket (traced as {@code what}). */
        void send(ZmtpMessage m, String what);

        /** Reports an event. */
        void event(MajordomoEvent.Type type, String peer, String service, String detail);

        /** A worker of {@code s} is idle: requests queued for {@code s} may go. */
        void idle(BrokerService s);
    }

    private static final Logger log = LoggerFactory.getLogger(WorkerTable.class);
    private static final PeerFailureLog peerLog = PeerFailureLog.get(WorkerTable.class);

    private final MajordomoBrokerSettings settings;
    private final LoopClock clock;
    private final ServiceTable services;
    private final RequestQueue queue;
    private final Owner owner;
    private final Map<RoutingId, Worker> workers = new HashMap<>();
    /** The workers by when they were last heard from and last sent to (the broker's, which beats). */
    private final PeerLiveness<Worker> liveness;

    WorkerTable(MajordomoBrokerSettings settings, LoopClock clock, ServiceTable services, RequestQueue queue,
            PeerLiveness<Worker> liveness, Owner owner) {
        this.settings = settings;
        this.clock = clock;
        this.services = services;
        this.queue = queue;
        this.liveness = liveness;
        this.owner = owner;
    }

    // ------------------------------------------------------------------ what workers say

    /** A worker command (anything but a client's REQUEST) read by the broker; ownership passes. */
    void onCommand(MdpCommand cmd) {
        RoutingId id = cmd.peer();
        Worker w = workers.get(id);
        MdpVersion v = cmd.version();
        if (w != null) {
            if (w.version != v) {
                cmd.release();
                disconnect(w, "switched from " + w.version + " to " + v);
                return;
            }
            heard(w);
        }
        if (cmd instanceof MdpCommand.WorkerReady ready) {
            String name = ready.serviceName();
            int nameBytes = ready.service().readableBytes();
            cmd.release();
            BrokerService s;
            if (w != null) {
                disconnect(w, "a second READY");
            } else if (MmiService.isInternal(name)) {
                disconnectUnknown(id, v, name, "a worker may not register the internal service " + name);
            } else if (nameBytes > settings.maxServiceNameBytes()) {
                disconnectUnknown(id, v, null, "service name longer than " + settings.maxServiceNameBytes() + " bytes");
            } else if ((s = services.getOrCreate(name)) == null) {
                disconnectUnknown(id, v, name, services.fullReason());
            } else {
                register(id, v, s);
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
                owner.event(MajordomoEvent.Type.WORKER_LEFT, w.hexId(), w.service.name, null);
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

    /** REPLY, PARTIAL or FINAL from worker {@code w} (null if unknown): checked, then on to its client. */
    private void onReply(Worker w, RoutingId id, MdpCommand cmd, ByteBuf client, ZmtpMessage body, boolean partial) {
        String what = cmd instanceof MdpCommand.WorkerReply ? "REPLY" : partial ? "PARTIAL" : "FINAL";
        if (w == null) {
            cmd.release();
            disconnectUnknown(id, cmd.version(), null, what + " before READY");
            return;
        }
        InFlightRequest c = w.current;
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
        client.release(); // it matched: the reply goes out with the request's own id object
        long limit = settings.maxAggregatedReplyBytes();
        boolean droppedBefore = c.overflowed();
        ZmtpMessage out = c.toClient(body, partial, w.service.nameBytes, limit);
        if (out != null) {
            owner.send(out, partial ? "I: sending PARTIAL to client" : c.clientVersion == MdpVersion.V0_2
                    ? "I: sending FINAL to client" : "I: sending REPLY to client");
        } else if (!droppedBefore && c.overflowed()) {
            String to = ByteBufUtil.hexDump(c.client.bytes());
            peerLog.warn("Majordomo broker drops the streamed reply of worker {} ({}) for MDP/0.1 client {}: over {} bytes",
                    w.hexId(), FrameText.escape(w.service.name), to, limit);
            owner.event(MajordomoEvent.Type.REPLY_DROPPED, to, w.service.name, "streamed reply over " + limit + " bytes");
        }
        if (!partial) {
            w.current = null;
            c.release();
            idle(w);
        }
    }

    private void register(RoutingId id, MdpVersion version, BrokerService s) {
        long now = clock.nanoTime();
        Worker w = new Worker(id, version, s, now);
        workers.put(id, w);
        liveness.heard(w);
        liveness.sent(w); // the first HEARTBEAT an interval after READY
        s.workers++;
        queue.adopted(s);
        if (log.isDebugEnabled()) {
            log.debug("worker {} ready for {} ({})", w.hexId(), FrameText.escape(s.name), version);
        }
        owner.event(MajordomoEvent.Type.WORKER_READY, w.hexId(), s.name, version.toString());
        idle(w);
    }

    /** The worker waits for work: at the end of its service's idle list; the service's requests may go. */
    private void idle(Worker w) {
        w.service.idle.add(w.id, w);
        owner.idle(w.service);
    }

    /** Answers a known worker's unexpected command: DISCONNECT, then forget it. */
    private void disconnect(Worker w, String reason) {
        peerLog.warn("Majordomo broker disconnects worker {} ({}): {}", w.hexId(), FrameText.escape(w.service.name),
                FrameText.escape(reason));
        forget(w);
        owner.send(MdpProtocol.toWorker(w.id, w.version, WorkerCommand.DISCONNECT), "I: sending DISCONNECT to worker");
        owner.event(MajordomoEvent.Type.WORKER_DISCONNECTED, w.hexId(), w.service.name, reason);
    }

    private void disconnectUnknown(RoutingId id, MdpVersion v, String service, String reason) {
        String hex = ByteBufUtil.hexDump(id.bytes());
        peerLog.warn("Majordomo broker disconnects worker {}: {}", hex, FrameText.escape(reason));
        owner.send(MdpProtocol.toWorker(id, v, WorkerCommand.DISCONNECT), "I: sending DISCONNECT to worker");
        owner.event(MajordomoEvent.Type.WORKER_DISCONNECTED, hex, service, reason);
    }

    /** The worker's connection is gone: it is forgotten. */
    void gone(Worker w) {
        if (log.isDebugEnabled()) {
            log.debug("worker {} ({}) is gone: its connection closed", w.hexId(), FrameText.escape(w.service.name));
        }
        forget(w);
        owner.event(MajordomoEvent.Type.WORKER_LEFT, w.hexId(), w.service.name, "connection closed");
    }

    /** The worker was silent for the heartbeat expiry (the liveness forgot it already): forgotten. */
    void expired(Worker w) {
        peerLog.warn("Majordomo broker: worker {} ({}) expired, silent for {} ms", w.hexId(),
                FrameText.escape(w.service.name), (clock.nanoTime() - w.lastHeard) / 1_000_000);
        forget(w);
        owner.event(MajordomoEvent.Type.WORKER_EXPIRED, w.hexId(), w.service.name, null);
    }

    /** Nothing went to the worker for an interval: a HEARTBEAT. */
    void heartbeat(Worker w) {
        owner.send(MdpProtocol.toWorker(w.id, w.version, WorkerCommand.HEARTBEAT), "I: sending HEARTBEAT to worker");
    }

    /**
     * Sends DISCONNECT to every idle worker registered at or before {@code registeredBy} (a clock
     * time) and forgets it; returns how many.
     */
    int sendAway(long registeredBy, String reason) {
        List<Worker> away = new ArrayList<>();
        for (Worker w : workers.values()) {
            if (w.current == null && w.registeredAt - registeredBy <= 0) {
                away.add(w);
            }
        }
        for (Worker w : away) {
            forget(w);
            owner.send(MdpProtocol.toWorker(w.id, w.version, WorkerCommand.DISCONNECT), "I: sending DISCONNECT to worker");
            owner.event(MajordomoEvent.Type.WORKER_DISCONNECTED, w.hexId(), w.service.name, reason);
        }
        return away.size();
    }

    // ------------------------------------------------------------------ the table

    /** The registered worker with this routing id, or null. */
    Worker get(RoutingId id) {
        return workers.get(id);
    }

    int size() {
        return workers.size();
    }

    /** The registered workers (a view: do not change the table while iterating). */
    Collection<Worker> all() {
        return workers.values();
    }

    /** The worker sent something: alive for another expiry. */
    private void heard(Worker w) {
        w.lastHeard = clock.nanoTime();
        liveness.heard(w);
    }

    /** Something went to the worker: its next HEARTBEAT is an interval from now. */
    void sentTo(Worker w) {
        liveness.sent(w);
    }

    /** Takes the worker of {@code s} idle longest, or null. */
    Worker pollIdle(BrokerService s) {
        return s.idle.poll();
    }

    /**
     * Removes a worker from every structure; a request it was serving is dropped (its joined reply
     * released). A service left without workers ages its queued requests, or is forgotten.
     */
    private void forget(Worker w) {
        if (workers.remove(w.id) != w) {
            return;
        }
        liveness.remove(w);
        BrokerService s = w.service;
        s.idle.remove(w.id);
        s.workers--;
        if (w.current != null) {
            w.current.release();
            w.current = null;
        }
        if (s.workers == 0) {
            queue.orphaned(s, clock.nanoTime());
            services.forgetIfUnused(s);
        }
    }

    /** Forgets every worker (the broker closed), releasing what they were serving. */
    void clear() {
        for (Worker w : workers.values()) {
            if (w.current != null) {
                w.current.release();
                w.current = null;
            }
        }
        workers.clear();
        liveness.clear();
    }
}
