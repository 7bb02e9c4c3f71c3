package io.zmtp.patterns.majordomo;

import io.netty.buffer.ByteBufUtil;
import io.zmtp.patterns.kit.ReadyWorkers;
import io.zmtp.socket.RoutingId;

import java.nio.charset.StandardCharsets;

/**
 * A service the broker knows, with the two halves of its state: the requests waiting for it (kept
 * by the {@link RequestQueue}) and the workers registered for it (kept by the {@link WorkerTable}).
 * The broker keeps a service while it has either, and forgets it when it has neither
 * ({@link #unused()}). Used on the broker's loop only.
 *
 * <p>The records of those halves are nested here, a {@link QueuedRequest} with the
 * {@link QueuedClient} that sent it, and a registered {@link Worker}: each names its service and
 * the service holds them, so they form one data structure, which the queue and the table change
 * and which refers to neither of them.
 */
final class BrokerService {
    final String name;
    /** The name as the service frame of a reply (shared: never written to). */
    final byte[] nameBytes;

    // The request queue's: this service's FIFO of queued requests, and what they add up to.
    QueuedRequest head;
    QueuedRequest tail;
    int count;
    long bytes;
    /** Since when the service has had queued requests and no worker (its requests age from then). */
    long orphanedSince;

    // The worker table's: the idle workers, the one idle longest first (the kit's LRU), and how many are registered.
    final ReadyWorkers<Worker> idle = new ReadyWorkers<>();
    int workers;

    BrokerService(String name) {
        this.name = name;
        this.nameBytes = name.getBytes(StandardCharsets.UTF_8);
    }

    /** Whether nothing is queued for it and no worker is registered for it: the broker forgets it. */
    boolean unused() {
        return head == null && workers == 0;
    }

    /** A client with requests queued, and its queued requests in order. */
    static final class QueuedClient {
        final RoutingId id;
        QueuedRequest head;
        QueuedRequest tail;
        int count;

        QueuedClient(RoutingId id) {
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

    /**
     * A queued request: its body as one heap array (see {@link RequestQueue}), in its service's queue
     * and its client's list at once (intrusive links, so either can drop it in O(1)).
     */
    static final class QueuedRequest {
        final QueuedClient client;
        final BrokerService service;
        final MdpVersion version;
        final long queuedAt;
        final byte[] body;
        final int frames;
        final long size;
        QueuedRequest sPrev;
        QueuedRequest sNext;
        QueuedRequest cPrev;
        QueuedRequest cNext;

        QueuedRequest(QueuedClient client, BrokerService service, MdpVersion version, long queuedAt, byte[] body,
                      int frames, long size) {
            this.client = client;
            this.service = service;
            this.version = version;
            this.queuedAt = queuedAt;
            this.body = body;
            this.frames = frames;
            this.size = size;
        }
    }

    /** A registered worker. */
    static final class Worker {
        final RoutingId id;
        final MdpVersion version;
        final BrokerService service;
        final long registeredAt;
        long lastHeard;
        /** The request it is serving, or null when idle. */
        InFlightRequest current;

        Worker(RoutingId id, MdpVersion version, BrokerService service, long now) {
            this.id = id;
            this.version = version;
            this.service = service;
            this.registeredAt = now;
            this.lastHeard = now;
        }

        String hexId() {
            return ByteBufUtil.hexDump(id.bytes());
        }
    }
}
