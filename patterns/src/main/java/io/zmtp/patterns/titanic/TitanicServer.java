package io.zmtp.patterns.titanic;

import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.kit.LoopComponent;
import io.zmtp.patterns.majordomo.MajordomoAsyncClient;
import io.zmtp.patterns.majordomo.MajordomoWorker;
import io.zmtp.patterns.majordomo.MajordomoWorkerSettings;
import io.zmtp.patterns.kit.LoopClock;
import io.zmtp.socket.ZmtpContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The Titanic server (9/TSP, the guide's titanic): disconnected reliability over Majordomo, in the
 * guide's four pieces.
 *
 * <ul>
 *   <li>{@link TitanicRequestService} ({@code titanic.request}, {@code service | body...}): a new
 *       uuid; the request is stored ({@link TitanicStore#putRequest}) and only once durable
 *       answered {@code 200 | uuid}, then handed to the dispatcher. A full store answers 500; a
 *       malformed request 400.</li>
 *   <li>{@link TitanicReplyService} ({@code titanic.reply}, {@code uuid}): {@code 200 | reply...},
 *       300 while pending, 400 for an unknown uuid; the reply is kept until closed (idempotent).</li>
 *   <li>{@link TitanicCloseService} ({@code titanic.close}, {@code uuid}): forgets request and
 *       reply; 200, even for an unknown uuid.</li>
 *   <li>{@link TitanicDispatcher}: every pending request to its service until a reply is stored
 *       or it is closed; nothing is dropped.</li>
 *   <li>{@link ClaimKeeper}, with a shared store (several servers on one database): this
 *       server dispatches only the requests it holds, renews them, and takes over those of a
 *       server that stopped renewing.</li>
 * </ul>
 * The services are registered with the broker by Majordomo workers whose handlers never block (they
 * run on the workers' loops and answer when the store's future completes; every store call goes
 * through {@link StoreCall}). A Majordomo worker serves one request at a time, so
 * {@link TitanicSettings#requestWorkers()} workers let that many submissions wait for a commit at
 * once: the store groups them. This class is the component that runs them: it starts the
 * dispatcher's clients, reads the pending requests from the store, starts the workers, and every
 * {@link TitanicSettings#retentionSweep()} has the store delete replies older than
 * {@link TitanicSettings#replyRetention()}. The dispatcher and the server's state live on its one
 * event loop; store futures complete on the store's thread and hand what they change back to it.
 *
 * <p>The server does not own its store: the caller opens it before and closes it after the
 * server.
 *
 * <p>When a worker's socket stops reconnecting to the broker (a {@link io.zmtp.socket.ReconnectStop}
 * case of the workers' socket options, or the broker's ERROR), that service would stay unserved
 * for good: the server closes itself, and its {@link #terminated()} fails with the worker's
 * {@link io.zmtp.patterns.kit.ReconnectStoppedException}.
 */
public final class TitanicServer extends LoopComponent {
    private static final Logger log = LoggerFactory.getLogger(TitanicServer.class);

    /** The service that stores a request: {@code titanic.request}. */
    public static final String REQUEST = TitanicRequestService.NAME;
    /** The service that answers a request's reply: {@code titanic.reply}. */
    public static final String REPLY = TitanicReplyService.NAME;
    /** The service that forgets a request: {@code titanic.close}. */
    public static final String CLOSE = TitanicCloseService.NAME;

    private final ZmtpContext ctx;
    private final TitanicSettings settings;
    private final TitanicStore store;
    private final EventReporter<TitanicEvent> events;
    private final LoopClock clock;
    private final TitanicDispatcher dispatcher;
    private final List<MajordomoWorker> workers = new ArrayList<>();
    private final MajordomoAsyncClient[] lanes;
    /** Asks mmi.service. */
    private final MajordomoAsyncClient mmi;
    private final AtomicLong stored = new AtomicLong();
    private final AtomicLong replied = new AtomicLong();
    private final AtomicLong dispatches = new AtomicLong();

    private LoopClock.Timer retentionTimer;
    /** A shared store's claims (renewed, taken over), or null. */
    private ClaimKeeper claims;
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
        this.lanes = new MajordomoAsyncClient[settings.dispatchLanes()];
        for (int i = 0; i < lanes.length; i++) {
            lanes[i] = newClient();
        }
        this.mmi = newClient();
        this.dispatcher = new TitanicDispatcher(settings, store, clock, this::inLoop, events, lanes, mmi, replied,
                dispatches);
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
                // a shared store: only the requests nobody holds, claimed for this server
                .thenCompose(v -> store.shared() ? ClaimKeeper.firstClaims(store) : store.pendingRequests())
                .whenComplete((list, error) -> inLoop(() -> {
                    if (error != null) {
                        done.completeExceptionally(StoreCall.unwrap(error));
                        return;
                    }
                    if (stopped) {
                        done.completeExceptionally(new IllegalStateException("closed while starting"));
                        return;
                    }
                    dispatcher.recover(list);
                    int recovered = list.size();
                    List<CompletableFuture<Void>> workerStarts = new ArrayList<>();
                    startWorkers(settings.requestWorkers(), new TitanicRequestService(settings, store, dispatcher,
                            this::inLoop, events, stored), workerStarts);
                    startWorkers(settings.replyWorkers(), new TitanicReplyService(store, this::inLoop, events),
                            workerStarts);
                    startWorkers(settings.closeWorkers(), new TitanicCloseService(store, dispatcher, this::inLoop,
                            events), workerStarts);
                    scheduleRetention();
                    if (store.shared()) {
                        claims = new ClaimKeeper(store, clock, this::inLoop, dispatcher, events);
                        claims.start(recovered == ClaimKeeper.BATCH);
                    }
                    events.report(() -> new TitanicEvent.Started(settings.broker(), recovered, store.toString()));
                    CompletableFuture.allOf(workerStarts.toArray(CompletableFuture[]::new))
                            .whenComplete((v, e) -> {
                                if (e != null) {
                                    done.completeExceptionally(StoreCall.unwrap(e));
                                } else {
                                    done.complete(null);
                                }
                            });
                }));
        return done;
    }

    private void startWorkers(int n, TspService service, List<CompletableFuture<Void>> starts) {
        // The handlers never block: they run on the worker's loop and answer when the store does.
        MajordomoWorkerSettings ws = settings.workerSettings().toBuilder().executor(Runnable::run).build();
        for (int i = 0; i < n; i++) {
            MajordomoWorker w = new MajordomoWorker(ctx, settings.broker(), service.name, service, ws);
            workers.add(w);
            starts.add(w.start().toCompletableFuture());
            // a worker whose socket stopped reconnecting leaves its service unserved for good: the server ends
            w.terminated().exceptionally(e -> {
                inLoop(() -> closeFailed(StoreCall.unwrap(e)));
                return null;
            });
        }
    }

    /** Closes the workers (DISCONNECT), then the clients; requests in flight stay stored. */
    @Override
    protected CompletionStage<Void> onClose() {
        stopped = true;
        dispatcher.stop();
        if (retentionTimer != null) {
            retentionTimer.cancel();
        }
        if (claims != null) {
            claims.stop();
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

    // ------------------------------------------------------------------ retention

    private void scheduleRetention() {
        if (settings.replyRetention().isZero() || stopped) {
            return;
        }
        retentionTimer = clock.schedule(() -> {
            long before = settings.wallClock().getAsLong() - settings.replyRetention().toMillis();
            store.expireReplies(before).whenComplete((n, error) -> inLoop(() -> {
                if (error != null) {
                    log.warn("titanic: retention failed", StoreCall.unwrap(error));
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
        inLoop(() -> f.complete(dispatcher.pendingCount()));
        return f;
    }

    @Override
    public String toString() {
        return "TitanicServer[" + settings.broker() + "]";
    }
}
