package io.zmtp.patterns.titanic;

import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.LoopClock;
import io.zmtp.patterns.majordomo.MajordomoAsyncClient;
import io.zmtp.patterns.majordomo.MajordomoReply;
import io.zmtp.patterns.majordomo.MmiService;
import io.zmtp.wire.Frames;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The Titanic server's dispatcher (the guide's main loop): every stored request without a reply
 * goes to its service, again and again if need be, until a reply is stored or it is closed.
 *
 * <ul>
 *   <li>Queues: the pending requests wait in one FIFO per service ({@link #recover} loads those
 *       stored before a start, oldest first; {@link #newRequest} adds each new one).</li>
 *   <li>Availability: before a service's first dispatch, and again after one of its dispatches
 *       failed, it asks {@code mmi.service} (one question at a time, on a client of its own), at
 *       most once per {@link TitanicSettings#retryInterval()} per service; while the answer is
 *       404 the service's requests wait and the question is asked again every interval.</li>
 *   <li>Lanes: a request goes out on one of {@link TitanicSettings#dispatchLanes()} Majordomo
 *       asynchronous clients. MDP has no request id and that client matches a reply to the oldest
 *       request of its service, so each lane has at most one request per service in flight (a
 *       64-bit mask per service): a reply answers the request it belongs to (a late reply to a
 *       request given up is dropped by the client, see
 *       {@link io.zmtp.patterns.kit.RetryingRequester}). At most
 *       {@link TitanicSettings#maxDispatches()} are in flight in all; services take turns. The
 *       body comes from memory for a new request (within {@link TitanicSettings#bodyCacheBytes()}),
 *       else from the store.</li>
 *   <li>Replies: stored with {@link TitanicStore#putReply} (the first one stays), and the request
 *       leaves the queue. No reply within {@link TitanicSettings#dispatchTimeout()} (a dead worker,
 *       a lost broker) or the broker's refusal: the request waits {@link TitanicSettings#retryInterval()}
 *       and goes again (one timer for all: every wait is as long, so they fall due in order).</li>
 * </ul>
 * Everything here runs on the server's loop; store and client futures complete elsewhere and hand
 * what they change back to it.
 */
final class TitanicDispatcher {
    private static final Logger log = LoggerFactory.getLogger(TitanicDispatcher.class);

    private final TitanicSettings settings;
    private final TitanicStore store;
    private final LoopClock clock;
    /** Runs a task on the server's loop (where this dispatcher lives). */
    private final Executor loop;
    private final EventReporter<TitanicEvent> events;
    private final MajordomoAsyncClient[] lanes;
    /** Asks mmi.service. */
    private final MajordomoAsyncClient mmi;
    private final long retryNanos;
    /** Report an event per request stored, dispatched and replied ({@code traceMessages}). */
    private final boolean trace;
    private final AtomicLong replied;
    private final AtomicLong dispatches;

    private final Map<String, Entry> pending = new HashMap<>();
    private final Map<String, ServiceQueue> services = new HashMap<>();
    /** Services that may dispatch now (available, a request queued, a lane free), in turn. */
    private final ArrayDeque<ServiceQueue> runnable = new ArrayDeque<>();
    /** Requests waiting for the retry interval, in the order they failed (same delay: due in order). */
    private final ArrayDeque<Entry> delayed = new ArrayDeque<>();
    private LoopClock.Timer delayTimer;
    /** Services waiting for their mmi.service answer, asked one at a time. */
    private final ArrayDeque<ServiceQueue> checks = new ArrayDeque<>();
    private boolean checking;
    private int inFlight;
    private long cachedBytes;
    private boolean stopped;

    TitanicDispatcher(TitanicSettings settings, TitanicStore store, LoopClock clock, Executor loop,
            EventReporter<TitanicEvent> events, MajordomoAsyncClient[] lanes, MajordomoAsyncClient mmi,
            AtomicLong replied, AtomicLong dispatches) {
        this.settings = settings;
        this.store = store;
        this.clock = clock;
        this.loop = loop;
        this.events = events;
        this.lanes = lanes;
        this.mmi = mmi;
        this.retryNanos = settings.retryInterval().toNanos();
        this.trace = settings.traceMessages();
        this.replied = replied;
        this.dispatches = dispatches;
    }

    /** The requests stored before the start, oldest first: queued for dispatch. */
    void recover(List<TitanicStore.PendingRequest> stored) {
        for (TitanicStore.PendingRequest p : stored) {
            if (!pending.containsKey(p.uuid())) {
                enqueue(new Entry(p.uuid(), service(p.service()), null));
            }
        }
    }

    /** Requests stored and not yet replied to or closed. */
    int pendingCount() {
        return pending.size();
    }

    /** Stops dispatching: timers cancelled; what is in flight is not waited for (the requests stay stored). */
    void stop() {
        stopped = true;
        if (delayTimer != null) {
            delayTimer.cancel();
        }
        for (ServiceQueue s : services.values()) {
            if (s.recheck != null) {
                s.recheck.cancel();
            }
        }
    }

    /** A request is durable (titanic.request): it joins its service's queue, its body kept while the cache has room. */
    void newRequest(String uuid, String service, Frames body, long bytes) {
        if (stopped) {
            return;
        }
        if (trace) {
            events.report(() -> new TitanicEvent.Stored(uuid, service));
        }
        Frames cached = null;
        if (cachedBytes + bytes <= settings.bodyCacheBytes()) {
            cached = body;
            cachedBytes += bytes;
        }
        Entry e = new Entry(uuid, service(service), cached);
        e.cachedBytes = cached == null ? 0 : bytes;
        enqueue(e);
    }

    /** titanic.close: the request leaves the queue (a dispatch in flight is not waited for). */
    void forget(String uuid) {
        Entry e = pending.remove(uuid);
        if (e != null) {
            e.closed = true;
            dropCache(e);
        }
    }

    private ServiceQueue service(String name) {
        return services.computeIfAbsent(name, ServiceQueue::new);
    }

    private void enqueue(Entry e) {
        if (stopped || e.closed) {
            return;
        }
        pending.put(e.uuid, e);
        e.service.queue.add(e);
        wake(e.service);
    }

    /** The service has queued requests: dispatch if it is known to have workers, else ask. */
    private void wake(ServiceQueue s) {
        if (stopped || s.queue.isEmpty()) {
            return;
        }
        if (s.available) {
            if (!s.inRunnable && s.inFlight < lanes.length) {
                s.inRunnable = true;
                runnable.add(s);
            }
            pump();
        } else {
            check(s);
        }
    }

    /** Asks mmi.service about {@code s}, or sets a timer for when it may be asked again. */
    private void check(ServiceQueue s) {
        if (s.checking || s.recheck != null) {
            return;
        }
        long now = clock.nanoTime();
        if (s.everChecked && now - s.checkedAt < retryNanos) {
            s.recheck = clock.schedule(() -> {
                s.recheck = null;
                wake(s);
            }, Duration.ofNanos(s.checkedAt + retryNanos - now));
            return;
        }
        s.checking = true;
        checks.add(s);
        nextCheck();
    }

    private void nextCheck() {
        if (checking || stopped) {
            return;
        }
        ServiceQueue s = checks.poll();
        if (s == null) {
            return;
        }
        checking = true;
        mmi.request(MmiService.MMI_SERVICE, s.name.getBytes(StandardCharsets.UTF_8))
                .whenComplete((r, error) -> loop.execute(() -> checked(s, r, error)));
    }

    private void checked(ServiceQueue s, MajordomoReply r, Throwable error) {
        checking = false;
        s.checking = false;
        s.everChecked = true;
        s.checkedAt = clock.nanoTime();
        if (stopped) {
            return;
        }
        boolean found = error == null && !r.body().isEmpty()
                && MmiService.MMI_FOUND.equals(r.body().frameString(0));
        if (found) {
            s.available = true;
            if (s.reportedAbsent) {
                s.reportedAbsent = false;
                events.report(() -> new TitanicEvent.ServiceAvailable(s.name));
            }
        } else {
            s.available = false;
            if (!s.reportedAbsent) {
                s.reportedAbsent = true;
                int waiting = s.queue.size();
                events.report(() -> new TitanicEvent.ServiceAbsent(s.name, waiting));
            }
        }
        wake(s);
        nextCheck();
    }

    /** Sends what may go: round robin over the runnable services, within maxDispatches. */
    private void pump() {
        while (inFlight < settings.maxDispatches() && !runnable.isEmpty()) {
            ServiceQueue s = runnable.poll();
            if (!s.available || s.queue.isEmpty() || s.inFlight >= lanes.length) {
                s.inRunnable = false;
                continue;
            }
            Entry e = s.queue.poll();
            if (!e.closed) {
                dispatch(s, e);
            }
            runnable.add(s); // its turn again after the others
        }
    }

    private void dispatch(ServiceQueue s, Entry e) {
        int lane = Long.numberOfTrailingZeros(~s.busyLanes);
        s.busyLanes |= 1L << lane;
        s.inFlight++;
        inFlight++;
        if (e.body != null) {
            Frames body = e.body;
            dropCache(e);
            send(s, e, lane, body);
            return;
        }
        StoreCall.of(() -> store.request(e.uuid)).whenComplete((stored, error) -> loop.execute(() -> {
            if (error != null) {
                // the store logged its failure; the event says what it means for this request
                log.debug("titanic: reading request {} failed", e.uuid, StoreCall.unwrap(error));
                done(s, lane);
                retryLater(e, TspService.storeFailure(error));
            } else if (stored.isEmpty() || e.closed || stopped) {
                done(s, lane); // closed meanwhile
                pending.remove(e.uuid, e);
            } else {
                send(s, e, lane, stored.get().body());
            }
        }));
    }

    private void send(ServiceQueue s, Entry e, int lane, Frames body) {
        dispatches.incrementAndGet();
        if (trace) {
            events.report(() -> new TitanicEvent.Dispatched(e.uuid, s.name));
        }
        lanes[lane].request(s.name, null, body).whenComplete((r, error) -> loop.execute(() -> answered(s, e, lane, r, error)));
    }

    private void answered(ServiceQueue s, Entry e, int lane, MajordomoReply r,
                          Throwable error) {
        done(s, lane);
        if (stopped) {
            return;
        }
        if (error != null || r.isRefused()) {
            String reason = error != null ? String.valueOf(StoreCall.unwrap(error).getMessage())
                    : "refused: " + r.refusalReason();
            s.available = false; // ask mmi.service again before the next dispatch
            retryLater(e, reason);
            wake(s);
            return;
        }
        if (e.closed) {
            wake(s);
            return;
        }
        StoreCall.of(() -> store.putReply(e.uuid, r.body())).whenComplete((ok, putError) -> loop.execute(() -> {
            if (putError != null) {
                log.debug("titanic: storing the reply to {} failed", e.uuid, StoreCall.unwrap(putError));
                retryLater(e, TspService.storeFailure(putError));
                return;
            }
            pending.remove(e.uuid, e);
            replied.incrementAndGet();
            if (trace) {
                events.report(() -> new TitanicEvent.Replied(e.uuid, s.name));
            }
        }));
        wake(s);
    }

    /** A lane of {@code s} is free again. */
    private void done(ServiceQueue s, int lane) {
        s.busyLanes &= ~(1L << lane);
        s.inFlight--;
        inFlight--;
        if (!s.inRunnable && s.available && !s.queue.isEmpty()) {
            s.inRunnable = true;
            runnable.add(s);
        }
        pump();
    }

    private void retryLater(Entry e, String reason) {
        if (stopped || e.closed) {
            return;
        }
        events.report(() -> new TitanicEvent.DispatchFailed(e.uuid, e.service.name, reason));
        e.retryAt = clock.nanoTime() + retryNanos;
        delayed.add(e);
        if (delayTimer == null) {
            scheduleDelayed();
        }
    }

    private void scheduleDelayed() {
        Entry head = delayed.peek();
        if (head == null || stopped) {
            delayTimer = null;
            return;
        }
        delayTimer = clock.schedule(() -> {
            long now = clock.nanoTime();
            Entry d;
            while ((d = delayed.peek()) != null && d.retryAt <= now) {
                delayed.poll();
                if (!d.closed) {
                    d.service.queue.add(d);
                    wake(d.service);
                }
            }
            scheduleDelayed();
        }, Duration.ofNanos(Math.max(0, head.retryAt - clock.nanoTime())));
    }

    private void dropCache(Entry e) {
        if (e.body != null) {
            cachedBytes -= e.cachedBytes;
            e.body = null;
            e.cachedBytes = 0;
        }
    }


    /** One request waiting for its reply. */
    private static final class Entry {
        final String uuid;
        final ServiceQueue service;
        Frames body;
        long cachedBytes;
        boolean closed;
        long retryAt;

        Entry(String uuid, ServiceQueue service, Frames body) {
            this.uuid = uuid;
            this.service = service;
            this.body = body;
        }
    }

    /** One service's queue, its lanes in use and what mmi.service last said. */
    private static final class ServiceQueue {
        final String name;
        final ArrayDeque<Entry> queue = new ArrayDeque<>();
        long busyLanes;
        int inFlight;
        boolean available;
        boolean reportedAbsent;
        boolean checking;
        boolean everChecked;
        long checkedAt;
        LoopClock.Timer recheck;
        boolean inRunnable;

        ServiceQueue(String name) {
            this.name = name;
        }
    }
}
