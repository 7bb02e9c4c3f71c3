package io.zmtp.patterns.titanic;

import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.LoopComponent;
import io.zmtp.patterns.majordomo.MajordomoAsyncClient;
import io.zmtp.patterns.majordomo.MajordomoHandler;
import io.zmtp.patterns.majordomo.MajordomoReply;
import io.zmtp.patterns.majordomo.MajordomoWorker;
import io.zmtp.patterns.majordomo.MajordomoWorkerSettings;
import io.zmtp.patterns.majordomo.MmiService;
import io.zmtp.patterns.majordomo.ReplyStream;
import io.zmtp.patterns.kit.LoopClock;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.FrameText;
import io.zmtp.wire.Frames;
import io.zmtp.wire.PeerFailureLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The Titanic server (9/TSP, the guide's titanic): disconnected reliability over Majordomo.
 *
 * <p>It registers three services with the broker, each served by Majordomo workers whose handlers
 * never block (they run on the workers' loops and answer when the store's future completes):
 * <ul>
 *   <li>{@code titanic.request} ({@code service | body...}): a new uuid; the request is stored
 *       ({@link TitanicStore#putRequest}) and only once durable answered {@code 200 | uuid}, then
 *       queued for dispatch. A full store answers 500; a malformed request 400.</li>
 *   <li>{@code titanic.reply} ({@code uuid}): {@code 200 | reply...}, 300 while pending, 400 for an
 *       unknown uuid; the reply is kept until closed (idempotent).</li>
 *   <li>{@code titanic.close} ({@code uuid}): forgets request and reply; 200, even for an unknown
 *       uuid.</li>
 * </ul>
 * A Majordomo worker serves one request at a time, so {@link TitanicSettings#requestWorkers()}
 * workers let that many submissions wait for a commit at once: the store groups them.
 *
 * <p>The dispatcher is a reactor on the server's one event loop: the pending uuids (read from
 * {@link TitanicStore#pendingRequests()} at start, then every new one) wait in one queue per
 * service. Before a service's first dispatch, and again after a dispatch of it failed, it asks
 * {@code mmi.service} (at most once per {@link TitanicSettings#retryInterval() retry interval} per
 * service); while the answer is "no workers" the service's requests wait. A request goes out on
 * one of {@link TitanicSettings#dispatchLanes()} Majordomo asynchronous clients, each with at
 * most one request per service in flight, so a reply answers exactly the request it belongs to
 * (MDP has no request id; a late reply to a request given up is dropped by the client, see
 * {@link io.zmtp.patterns.kit.RetryingRequester}, so it never answers the next); at
 * most {@link TitanicSettings#maxDispatches()} are in flight. The reply
 * is stored with {@link TitanicStore#putReply} (the first stays) and the request leaves the queue;
 * a dispatch without a reply within {@link TitanicSettings#dispatchTimeout()} (a dead worker, a
 * lost broker) or refused by the broker waits the retry interval and goes again: a request is
 * never dropped until a reply is stored or it is closed. Store futures complete on the store's
 * thread; everything they change is handed back to the loop.
 *
 * <p>The server does not own its store: the caller opens it before and closes it after the
 * server.
 */
public final class TitanicServer extends LoopComponent {
    private static final Logger log = LoggerFactory.getLogger(TitanicServer.class);
    private static final PeerFailureLog peerLog = PeerFailureLog.get(TitanicServer.class);

    public static final String REQUEST = "titanic.request";
    public static final String REPLY = "titanic.reply";
    public static final String CLOSE = "titanic.close";

    private final ZmtpContext ctx;
    private final TitanicSettings settings;
    private final TitanicStore store;
    private final EventReporter<TitanicEvent> events;
    private final LoopClock clock;
    private final long retryNanos;
    /** Report an event per request stored, dispatched and replied ({@code traceMessages}). */
    private final boolean trace;
    private final List<MajordomoWorker> workers = new ArrayList<>();
    private final MajordomoAsyncClient[] lanes;
    /** Asks mmi.service. */
    private final MajordomoAsyncClient mmi;
    private final AtomicLong stored = new AtomicLong();
    private final AtomicLong replied = new AtomicLong();
    private final AtomicLong dispatches = new AtomicLong();

    // ---- state on the loop
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
    private LoopClock.Timer retentionTimer;
    private boolean stopped;

    public TitanicServer(ZmtpContext ctx, TitanicStore store) {
        this(ctx, store, TitanicSettings.DEFAULTS);
    }

    public TitanicServer(ZmtpContext ctx, TitanicStore store, TitanicSettings settings) {
        super(ctx.group().next(), settings.clock());
        this.ctx = ctx;
        this.store = Objects.requireNonNull(store);
        this.settings = settings;
        this.events = new EventReporter<>(settings.listener(), log, "Titanic server");
        this.clock = clock();
        this.retryNanos = settings.retryInterval().toNanos();
        this.trace = settings.traceMessages();
        this.lanes = new MajordomoAsyncClient[settings.dispatchLanes()];
        for (int i = 0; i < lanes.length; i++) {
            lanes[i] = newClient();
        }
        this.mmi = newClient();
    }

    public TitanicSettings settings() {
        return settings;
    }

    /** Requests answered 200 by titanic.request since start. */
    public long storedRequests() {
        return stored.get();
    }

    /** Replies stored since start. */
    public long storedReplies() {
        return replied.get();
    }

    /** Dispatches sent since start (retries included). */
    public long dispatches() {
        return dispatches.get();
    }

    // ------------------------------------------------------------------ lifecycle

    private MajordomoAsyncClient newClient() {
        return new MajordomoAsyncClient(ctx, settings.broker(), settings.clientSettings());
    }

    /**
     * Starts the dispatching clients, reads the pending requests from the store, then registers
     * the three services; completes when the workers' connects are under way.
     */
    @Override
    protected CompletionStage<Void> onStart() {
        List<CompletableFuture<Void>> starts = new ArrayList<>();
        for (MajordomoAsyncClient c : lanes) {
            starts.add(c.start().toCompletableFuture());
        }
        starts.add(mmi.start().toCompletableFuture());
        CompletableFuture<Void> done = new CompletableFuture<>();
        CompletableFuture.allOf(starts.toArray(CompletableFuture[]::new))
                .thenCompose(v -> store.pendingRequests())
                .whenComplete((list, error) -> inLoop(() -> {
                    if (error != null) {
                        done.completeExceptionally(unwrap(error));
                        return;
                    }
                    if (stopped) {
                        done.completeExceptionally(new IllegalStateException("closed while starting"));
                        return;
                    }
                    for (TitanicStore.PendingRequest p : list) {
                        if (!pending.containsKey(p.uuid())) {
                            enqueue(new Entry(p.uuid(), service(p.service()), null));
                        }
                    }
                    int recovered = list.size();
                    List<CompletableFuture<Void>> workerStarts = new ArrayList<>();
                    startWorkers(REQUEST, settings.requestWorkers(), this::handleRequest, workerStarts);
                    startWorkers(REPLY, settings.replyWorkers(), this::handleReply, workerStarts);
                    startWorkers(CLOSE, settings.closeWorkers(), this::handleClose, workerStarts);
                    scheduleRetention();
                    events.report(() -> new TitanicEvent.Started(settings.broker(), recovered));
                    CompletableFuture.allOf(workerStarts.toArray(CompletableFuture[]::new))
                            .whenComplete((v, e) -> {
                                if (e != null) {
                                    done.completeExceptionally(unwrap(e));
                                } else {
                                    done.complete(null);
                                }
                            });
                }));
        return done;
    }

    private void startWorkers(String service, int n, MajordomoHandler handler, List<CompletableFuture<Void>> starts) {
        // The handlers never block: they run on the worker's loop and answer when the store does.
        MajordomoWorkerSettings ws = settings.workerSettings().toBuilder().executor(Runnable::run).build();
        for (int i = 0; i < n; i++) {
            MajordomoWorker w = new MajordomoWorker(ctx, settings.broker(), service, handler, ws);
            workers.add(w);
            starts.add(w.start().toCompletableFuture());
        }
    }

    /** Closes the workers (DISCONNECT), then the clients; requests in flight stay stored. */
    @Override
    protected CompletionStage<Void> onClose() {
        stopped = true;
        if (delayTimer != null) {
            delayTimer.cancel();
        }
        if (retentionTimer != null) {
            retentionTimer.cancel();
        }
        for (ServiceQueue s : services.values()) {
            if (s.recheck != null) {
                s.recheck.cancel();
            }
        }
        List<CompletableFuture<Void>> closes = new ArrayList<>();
        for (MajordomoWorker w : workers) {
            closes.add(w.closeAsync().toCompletableFuture());
        }
        for (MajordomoAsyncClient c : lanes) {
            closes.add(c.closeAsync().toCompletableFuture());
        }
        closes.add(mmi.closeAsync().toCompletableFuture());
        return CompletableFuture.allOf(closes.toArray(CompletableFuture[]::new)).exceptionally(e -> null);
    }

    // ------------------------------------------------------------------ the three services

    /** titanic.request: {@code service | body...} -> stored, then {@code 200 | uuid}. */
    private void handleRequest(Frames request, ReplyStream replies) {
        if (request.size() < 2) {
            refuse(REQUEST, replies, TitanicStatus.UNKNOWN, "a request needs a service frame and a body ("
                    + request.size() + " frame(s))");
            return;
        }
        byte[] name = request.frame(0);
        if (name.length == 0 || name.length > settings.maxServiceNameBytes()) {
            refuse(REQUEST, replies, TitanicStatus.UNKNOWN, "service name of " + name.length + " bytes");
            return;
        }
        long bytes = request.byteSize();
        if (bytes > settings.maxRequestBytes()) {
            refuse(REQUEST, replies, TitanicStatus.UNKNOWN, "request of " + bytes + " bytes, over maxRequestBytes "
                    + settings.maxRequestBytes());
            return;
        }
        String service = new String(name, StandardCharsets.UTF_8);
        Frames body = request.dropFirst(1);
        String uuid = TitanicIds.newId();
        long size = bytes;
        CompletableFuture<Void> put;
        try {
            put = store.putRequest(uuid, service, body);
        } catch (RuntimeException e) {
            put = CompletableFuture.failedFuture(e);
        }
        put.whenComplete((v, error) -> {
            if (error != null) {
                Throwable cause = unwrap(error);
                if (cause instanceof TitanicStoreFullException) {
                    refuse(REQUEST, replies, TitanicStatus.ERROR, "store full: " + cause.getMessage());
                } else {
                    log.warn("titanic.request: storing failed", cause);
                    refuse(REQUEST, replies, TitanicStatus.ERROR, "store failed: " + cause);
                }
                return;
            }
            stored.incrementAndGet();
            // Durable: the dispatcher gets the request (first, so a close that follows the 200
            // finds it), and the client hears 200.
            inLoop(() -> newRequest(uuid, service, body, size));
            replies.finish(TitanicStatus.OK.frame(), uuid.getBytes(StandardCharsets.US_ASCII));
        });
    }

    /** titanic.reply: {@code uuid} -> {@code 200 | reply...}, 300 pending, 400 unknown. */
    private void handleReply(Frames request, ReplyStream replies) {
        String uuid = uuidOf(REPLY, request, replies);
        if (uuid == null) {
            return;
        }
        CompletableFuture<TitanicStore.ReplyLookup> lookup;
        try {
            lookup = store.reply(uuid);
        } catch (RuntimeException e) {
            lookup = CompletableFuture.failedFuture(e);
        }
        lookup.whenComplete((r, error) -> {
            if (error != null) {
                log.warn("titanic.reply: reading the store failed", unwrap(error));
                refuse(REPLY, replies, TitanicStatus.ERROR, "store failed: " + unwrap(error));
            } else if (r instanceof TitanicStore.ReplyLookup.Ready ready) {
                replies.finish(ready.reply().push(TitanicStatus.OK.frame()));
            } else if (r instanceof TitanicStore.ReplyLookup.Pending) {
                replies.finish(TitanicStatus.PENDING.frame());
            } else {
                replies.finish(TitanicStatus.UNKNOWN.frame());
            }
        });
    }

    /** titanic.close: {@code uuid} -> 200 (also for an unknown uuid). */
    private void handleClose(Frames request, ReplyStream replies) {
        String uuid = uuidOf(CLOSE, request, replies);
        if (uuid == null) {
            return;
        }
        inLoop(() -> forget(uuid));
        CompletableFuture<Void> closing;
        try {
            closing = store.close(uuid);
        } catch (RuntimeException e) {
            closing = CompletableFuture.failedFuture(e);
        }
        closing.whenComplete((v, error) -> {
            if (error != null) {
                log.warn("titanic.close: the store failed", unwrap(error));
                refuse(CLOSE, replies, TitanicStatus.ERROR, "store failed: " + unwrap(error));
            } else {
                replies.finish(TitanicStatus.OK.frame());
            }
        });
    }

    /** The uuid frame of a titanic.reply or titanic.close request, lower case; null (answered 400) if malformed. */
    private String uuidOf(String tsp, Frames request, ReplyStream replies) {
        if (request.size() != 1) {
            refuse(tsp, replies, TitanicStatus.UNKNOWN, "expected one uuid frame, got " + request.size());
            return null;
        }
        String text = new String(request.frame(0), StandardCharsets.ISO_8859_1);
        if (!TitanicIds.isValid(text)) {
            refuse(tsp, replies, TitanicStatus.UNKNOWN, "not a uuid of 32 hex characters: " + text);
            return null;
        }
        return text.toLowerCase(Locale.ROOT);
    }

    private void refuse(String tsp, ReplyStream replies, TitanicStatus status, String reason) {
        if (status == TitanicStatus.UNKNOWN) {
            peerLog.warn("{} answers {}: {}", tsp, status.code(), FrameText.escape(reason));
        }
        replies.finish(status.frame());
        inLoop(() -> events.report(() -> new TitanicEvent.Refused(tsp, status, reason)));
    }

    // ------------------------------------------------------------------ dispatching (on the loop)

    private void newRequest(String uuid, String service, Frames body, long bytes) {
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
    private void forget(String uuid) {
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
                .whenComplete((r, error) -> inLoop(() -> checked(s, r, error)));
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
        CompletableFuture<java.util.Optional<TitanicStore.StoredRequest>> read;
        try {
            read = store.request(e.uuid);
        } catch (RuntimeException ex) {
            read = CompletableFuture.failedFuture(ex);
        }
        read.whenComplete((stored, error) -> inLoop(() -> {
            if (error != null) {
                log.warn("titanic: reading request {} failed", e.uuid, unwrap(error));
                done(s, lane);
                retryLater(e, "store failed: " + unwrap(error));
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
        lanes[lane].request(s.name, null, body).whenComplete((r, error) -> inLoop(() -> answered(s, e, lane, r, error)));
    }

    private void answered(ServiceQueue s, Entry e, int lane, MajordomoReply r,
                          Throwable error) {
        done(s, lane);
        if (stopped) {
            return;
        }
        if (error != null || r.isRefused()) {
            String reason = error != null ? String.valueOf(unwrap(error).getMessage()) : "refused: " + r.refusalReason();
            s.available = false; // ask mmi.service again before the next dispatch
            retryLater(e, reason);
            wake(s);
            return;
        }
        if (e.closed) {
            wake(s);
            return;
        }
        CompletableFuture<Boolean> put;
        try {
            put = store.putReply(e.uuid, r.body());
        } catch (RuntimeException ex) {
            put = CompletableFuture.failedFuture(ex);
        }
        put.whenComplete((ok, putError) -> inLoop(() -> {
            if (putError != null) {
                log.warn("titanic: storing the reply to {} failed", e.uuid, unwrap(putError));
                retryLater(e, "store failed: " + unwrap(putError));
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

    // ------------------------------------------------------------------ retention

    private void scheduleRetention() {
        if (settings.replyRetention().isZero() || stopped) {
            return;
        }
        retentionTimer = clock.schedule(() -> {
            long before = settings.wallClock().getAsLong() - settings.replyRetention().toMillis();
            store.expireReplies(before).whenComplete((n, error) -> inLoop(() -> {
                if (error != null) {
                    log.warn("titanic: retention failed", unwrap(error));
                } else if (n > 0) {
                    events.report(() -> new TitanicEvent.Expired(n));
                }
            }));
            scheduleRetention();
        }, settings.retentionSweep());
    }

    // ------------------------------------------------------------------ state

    /** Requests stored and not yet replied to or closed (on the loop; for tests and the CLI). */
    public CompletableFuture<Integer> pendingCount() {
        CompletableFuture<Integer> f = new CompletableFuture<>();
        inLoop(() -> f.complete(pending.size()));
        return f;
    }

    private static Throwable unwrap(Throwable e) {
        while ((e instanceof CompletionException || e instanceof java.util.concurrent.ExecutionException)
                && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
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

    @Override
    public String toString() {
        return "TitanicServer[" + settings.broker() + "]";
    }
}
