package io.zmtp.patterns.majordomo;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.zmtp.patterns.kit.LoopClock;
import io.zmtp.patterns.majordomo.BrokerService.QueuedClient;
import io.zmtp.patterns.majordomo.BrokerService.QueuedRequest;
import io.zmtp.socket.RoutingId;
import io.zmtp.wire.PeerFailureLog;
import io.zmtp.wire.ZmtpMessage;

import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;

/**
 * The broker's queued requests: the requests that found no idle worker, in one FIFO per service
 * and, at once, in one list per client, within the broker's limits.
 *
 * <p>A request is queued as one compact heap copy of its body ({@link QueuedRequest}: the body
 * array, the client's version, the time, its links), so a queued request holds no pooled buffer
 * and a flood cannot pin direct memory; it is counted as its body bytes plus
 * {@value #REQUEST_OVERHEAD}. {@link #refusal} checks the four limits of
 * {@link MajordomoBrokerSettings} before a request is added: the service's request count and
 * bytes, the broker's bytes, the client's request count. Being linked in both lists, a request
 * leaves in O(1) whichever way it goes: to a worker, expired, or dropped with its client.
 *
 * <p>Expiry: a service that has queued requests and no worker is <em>orphaned</em> from then on;
 * each tick ({@link #expire()}) its requests older than the request expiry are dropped, oldest
 * first, at most {@link MajordomoBrokerSettings#expiryBatch()} per loop task (the rest in later
 * tasks), so a mass expiry does not hold up the loop. Used on the broker's loop only.
 */
final class RequestQueue {
    private static final PeerFailureLog peerLog = PeerFailureLog.get(RequestQueue.class);
    /** The bytes a queued request is counted for on top of its body: its node and array headers. */
    static final int REQUEST_OVERHEAD = 64;

    /** What the queue tells the broker. */
    @FunctionalInterface
    interface Owner {
        /** A request waited for a service without workers longer than the request expiry: dropped. */
        void expired(RoutingId client, BrokerService service);
    }

    private final MajordomoBrokerSettings settings;
    private final LoopClock clock;
    private final ServiceTable services;
    private final Owner owner;
    private final long requestExpiryNanos;
    /** Clients that have requests queued. */
    private final Map<RoutingId, QueuedClient> clients = new HashMap<>();
    /** Services that have queued requests and no worker: their requests age. */
    private final LinkedHashSet<BrokerService> orphaned = new LinkedHashSet<>();
    private long queuedBytes;
    private int queuedCount;
    private boolean expiryPending;

    RequestQueue(MajordomoBrokerSettings settings, LoopClock clock, ServiceTable services, Owner owner) {
        this.settings = settings;
        this.clock = clock;
        this.services = services;
        this.owner = owner;
        this.requestExpiryNanos = settings.requestExpiry().toNanos();
    }

    /** The bytes a request with {@code body} is counted for. */
    static long sizeOf(ZmtpMessage body) {
        return REQUEST_OVERHEAD + body.byteSize() + (body.size() == 1 ? 0 : 4L * body.size());
    }

    /** Why a request of {@code size} bytes from {@code client} cannot be queued for {@code s}, or null if it can. */
    String refusal(BrokerService s, RoutingId client, long size) {
        if (s.count >= settings.maxQueuedRequests()) {
            return "service queue full (" + s.count + " requests)";
        }
        if (s.bytes + size > settings.maxQueuedBytesPerService()) {
            return "service queue full (" + s.bytes + " bytes)";
        }
        if (queuedBytes + size > settings.maxQueuedBytes()) {
            return "broker queue full (" + queuedBytes + " bytes)";
        }
        QueuedClient c = clients.get(client);
        if (c != null && c.count >= settings.maxQueuedRequestsPerClient()) {
            return "client has " + c.count + " requests queued";
        }
        return null;
    }

    /**
     * Queues a copy of {@code body} (which stays the caller's) from {@code client} for {@code s}, counted
     * as {@code size}; the caller checked {@link #refusal} first. An orphaned service's request
     * ages from now.
     */
    void add(RoutingId client, BrokerService s, MdpVersion version, ZmtpMessage body, long size) {
        QueuedClient c = clients.get(client);
        if (c == null) {
            c = new QueuedClient(client);
            clients.put(client, c);
        }
        long now = clock.nanoTime();
        QueuedRequest q = new QueuedRequest(c, s, version, now, compact(body), body.size(), size);
        append(s, q);
        c.append(q);
        queuedBytes += size;
        queuedCount++;
        if (s.workers == 0) {
            orphaned(s, now);
        }
    }

    /** Takes {@code q} out of the queue; its body frames, wrapping its array (no copy), are the caller's. */
    ZmtpMessage take(QueuedRequest q) {
        unqueue(q);
        return expand(q);
    }

    /** Drops every queued request of {@code c}; returns how many. */
    int drop(QueuedClient c) {
        int n = 0;
        QueuedRequest q;
        while ((q = c.head) != null) {
            unqueue(q);
            n++;
        }
        return n;
    }

    /** The client's queued requests, or null if it has none. */
    QueuedClient client(RoutingId id) {
        return clients.get(id);
    }

    /** The clients that have requests queued (a view: do not change the queue while iterating). */
    Collection<QueuedClient> clients() {
        return clients.values();
    }

    /** The service lost its last worker: if it has requests, they age from {@code now}. */
    void orphaned(BrokerService s, long now) {
        if (s.head != null && orphaned.add(s)) {
            s.orphanedSince = now;
        }
    }

    /** The service has a worker again: its requests stop aging. */
    void adopted(BrokerService s) {
        orphaned.remove(s);
    }

    int count() {
        return queuedCount;
    }

    long bytes() {
        return queuedBytes;
    }

    /** Forgets everything (the broker closed); the bodies are heap arrays, nothing to release. */
    void clear() {
        clients.clear();
        orphaned.clear();
        queuedBytes = 0;
        queuedCount = 0;
    }

    /**
     * Expires the requests of orphaned services that waited longer than the request expiry, at
     * most {@link MajordomoBrokerSettings#expiryBatch()} in this loop task; the rest in the next.
     * A tick that comes while batches are still running adds nothing.
     */
    void expire() {
        if (!expiryPending) {
            expireBatch();
        }
    }

    private void expireBatch() {
        expiryPending = false;
        long now = clock.nanoTime();
        int budget = settings.expiryBatch();
        int expired = 0;
        for (Iterator<BrokerService> it = orphaned.iterator(); it.hasNext() && budget > 0; ) {
            BrokerService s = it.next();
            QueuedRequest q;
            while (budget > 0 && (q = s.head) != null
                    && now - Math.max(q.queuedAt, s.orphanedSince) >= requestExpiryNanos) {
                budget--;
                expired++;
                RoutingId client = q.client.id;
                unlink(q);
                owner.expired(client, s);
            }
            if (s.head == null) {
                it.remove();
                services.forgetIfUnused(s);
            }
        }
        if (expired > 0) {
            peerLog.warn("Majordomo broker: {} request(s) expired, no worker within {} ms", expired,
                    requestExpiryNanos / 1_000_000);
        }
        if (budget == 0) {
            expiryPending = true;
            clock.loop().execute(this::expireBatch);
        }
    }

    /** Takes a request out of its service's and its client's lists and out of the counts. */
    private void unqueue(QueuedRequest q) {
        BrokerService s = q.service;
        unlink(q);
        if (s.head == null) {
            orphaned.remove(s);
            services.forgetIfUnused(s);
        }
    }

    private void unlink(QueuedRequest q) {
        BrokerService s = q.service;
        if (q.sPrev == null) {
            s.head = q.sNext;
        } else {
            q.sPrev.sNext = q.sNext;
        }
        if (q.sNext == null) {
            s.tail = q.sPrev;
        } else {
            q.sNext.sPrev = q.sPrev;
        }
        q.sPrev = null;
        q.sNext = null;
        s.count--;
        s.bytes -= q.size;
        QueuedClient c = q.client;
        c.unlink(q);
        if (c.head == null) {
            clients.remove(c.id);
        }
        queuedBytes -= q.size;
        queuedCount--;
    }

    private static void append(BrokerService s, QueuedRequest q) {
        q.sPrev = s.tail;
        if (s.tail == null) {
            s.head = q;
        } else {
            s.tail.sNext = q;
        }
        s.tail = q;
        s.count++;
        s.bytes += q.size;
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
}
