package io.zmtp.benchmarks.titanic;

import io.zmtp.patterns.majordomo.MajordomoAsyncClient;
import io.zmtp.patterns.majordomo.MajordomoBroker;
import io.zmtp.patterns.majordomo.MajordomoBrokerSettings;
import io.zmtp.patterns.majordomo.MajordomoClientSettings;
import io.zmtp.patterns.majordomo.MajordomoHandler;
import io.zmtp.patterns.majordomo.MajordomoReply;
import io.zmtp.patterns.majordomo.MajordomoWorker;
import io.zmtp.patterns.majordomo.MajordomoWorkerSettings;
import io.zmtp.patterns.titanic.sqlite.SqliteTitanicStore;
import io.zmtp.patterns.titanic.TitanicServer;
import io.zmtp.patterns.titanic.TitanicSettings;
import io.zmtp.patterns.titanic.TitanicStore;
import io.zmtp.patterns.titanic.sqlite.TitanicStoreSettings;
import io.zmtp.patterns.titanic.postgresql.PostgresStoreSettings;
import io.zmtp.patterns.titanic.postgresql.PostgresTitanicStore;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.testing.PostgresServer;
import io.zmtp.wire.Frames;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * Titanic (9/TSP) throughput, everything in one process over loopback tcp: a Majordomo broker,
 * four echo workers, a {@link TitanicServer} with its default settings on a {@link SqliteTitanicStore}
 * (its default durability: a commit survives kill -9 of the process) in a temporary directory, or
 * one or two servers on PostgreSQL ({@link #store}),
 * and {@code clients} Majordomo asynchronous clients, each with one TSP call outstanding at a
 * time (so a reply always answers its own call), all running at once.
 *
 * <ul>
 *   <li>{@code submissions}: titanic.request after titanic.request, each answered 200 once durable:
 *       durable submissions per second. They are for a service without workers, so the figure is
 *       the submission path alone (Titanic keeps them pending; {@code cycles} has the dispatch).</li>
 *   <li>{@code cycles}: titanic.request, then titanic.reply 5 ms later and again every 20 ms until
 *       200, then titanic.close: complete cycles per second (request, dispatch, reply, fetch,
 *       close). The polling sets a floor of a few milliseconds per cycle and client.</li>
 * </ul>
 *
 * <pre>
 * flock /work/wt/bench.lock java -jar benchmarks/target/benchmarks.jar TitanicBenchmark -f 1 -wi 2 -w 2 -i 3 -r 3
 * java -jar benchmarks/target/benchmarks.jar 'TitanicBenchmark.submissions' -p clients=100 \
 *     -p store=sqlite,postgresql-1,postgresql-2 -f 1 -wi 2 -w 3 -i 5 -r 3
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
public class TitanicBenchmark {
    static final int CALLS = 2_000;
    static final byte[] SERVICE = "echo".getBytes(StandardCharsets.UTF_8);
    static final byte[] NOBODY = "nobody".getBytes(StandardCharsets.UTF_8);
    static final byte[] BODY = "Hello world".getBytes(StandardCharsets.UTF_8);
    static final byte[] OK = "200".getBytes(StandardCharsets.US_ASCII);
    /**
     * The first titanic.reply 5 ms after the 200, then every 20 ms while 300: with 100 clients at
     * most 5,000 polls/s (polls share the store's thread and the broker with the cycles).
     */
    static final long FIRST_POLL_MS = 5;
    static final long REPOLL_MS = 20;

    @Param({"1", "100"})
    public int clients;

    /**
     * {@code sqlite}: one server on SQLite in a temporary directory; {@code postgresql-1} and
     * {@code postgresql-2}: one or two servers (each with its store) sharing one database of a
     * private PostgreSQL server this benchmark starts ({@code PostgresServer}: Debian's postgresql,
     * its default {@code synchronous_commit}: every commit flushed), the broker spreading the
     * clients' calls over them.
     */
    @Param({"sqlite", "postgresql-1", "postgresql-2"})
    public String store;

    ZmtpContext ctx;
    Path dir;
    PostgresServer postgres;
    final List<TitanicStore> stores = new ArrayList<>();
    MajordomoBroker broker;
    final List<TitanicServer> titanics = new ArrayList<>();
    final List<MajordomoWorker> workers = new ArrayList<>();
    final List<MajordomoAsyncClient> tsp = new ArrayList<>();

    @Setup(Level.Trial)
    public void start() throws Exception {
        ctx = ZmtpContext.create(2);
        dir = Files.createTempDirectory("titanic-bench");
        if (store.equals("sqlite")) {
            stores.add(SqliteTitanicStore.open(TitanicStoreSettings.in(dir)));
        } else {
            postgres = PostgresServer.start();
            String url = postgres.newDatabase("bench");
            for (int i = 0; i < Integer.parseInt(store.substring(store.indexOf('-') + 1)); i++) {
                stores.add(PostgresTitanicStore.open(PostgresStoreSettings.of(url)));
            }
        }
        broker = new MajordomoBroker(ctx, MajordomoBrokerSettings.builder().endpoints("tcp://127.0.0.1:0").build());
        broker.start().toCompletableFuture().get(10, TimeUnit.SECONDS);
        String endpoint = broker.endpoint();
        for (int i = 0; i < 4; i++) {
            MajordomoWorker w = new MajordomoWorker(ctx, endpoint, "echo", MajordomoHandler.echo(),
                    MajordomoWorkerSettings.builder().executor(Runnable::run).build());
            w.start();
            workers.add(w);
        }
        int requestWorkers = 0;
        for (TitanicStore s : stores) {
            TitanicServer titanic = new TitanicServer(ctx, s, TitanicSettings.builder().broker(endpoint)
                    .requestWorkers(Integer.getInteger("titanic.requestWorkers", 32))
                    .replyWorkers(Integer.getInteger("titanic.replyWorkers", 8))
                    .closeWorkers(Integer.getInteger("titanic.closeWorkers", 8))
                    .dispatchLanes(Integer.getInteger("titanic.lanes", 8)).build());
            titanic.start().toCompletableFuture().get(10, TimeUnit.SECONDS);
            titanics.add(titanic);
            requestWorkers += titanic.settings().requestWorkers();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (broker.workerCount(TitanicServer.REQUEST) < requestWorkers || broker.workerCount("echo") < 4) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("workers did not register");
            }
            Thread.sleep(10);
        }
        MajordomoClientSettings cs = MajordomoClientSettings.builder().timeout(Duration.ofSeconds(30)).retries(1).build();
        for (int i = 0; i < clients; i++) {
            MajordomoAsyncClient c = new MajordomoAsyncClient(ctx, endpoint, cs);
            c.start().toCompletableFuture().get(10, TimeUnit.SECONDS);
            tsp.add(c);
        }
    }

    @TearDown(Level.Trial)
    public void stop() throws IOException {
        for (MajordomoAsyncClient c : tsp) {
            c.close();
        }
        titanics.forEach(TitanicServer::close);
        for (MajordomoWorker w : workers) {
            w.close();
        }
        broker.close();
        stores.forEach(TitanicStore::close);
        ctx.close(Duration.ofSeconds(5));
        if (postgres != null) {
            postgres.close();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** Durable submissions: {@value #CALLS} titanic.request calls shared by the clients. */
    @Benchmark
    @OperationsPerInvocation(CALLS)
    public void submissions() throws Exception {
        run(false);
    }

    /** Complete cycles: {@value #CALLS} request-reply-close cycles shared by the clients. */
    @Benchmark
    @OperationsPerInvocation(CALLS)
    public void cycles() throws Exception {
        run(true);
    }

    private void run(boolean cycle) throws Exception {
        CountDownLatch done = new CountDownLatch(clients);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        int share = CALLS / clients;
        for (int i = 0; i < clients; i++) {
            int calls = share + (i < CALLS % clients ? 1 : 0);
            new Chain(tsp.get(i), calls, cycle, done, failure).next();
        }
        if (!done.await(120, TimeUnit.SECONDS)) {
            throw new IllegalStateException("calls did not finish in 120 s");
        }
        if (failure.get() != null) {
            throw new IllegalStateException(failure.get());
        }
    }

    /** One client's calls, one after the other, driven by its replies on its loop. */
    private static final class Chain {
        final MajordomoAsyncClient client;
        final boolean cycle;
        final CountDownLatch done;
        final AtomicReference<Throwable> failure;
        int left;

        Chain(MajordomoAsyncClient client, int calls, boolean cycle, CountDownLatch done, AtomicReference<Throwable> failure) {
            this.client = client;
            this.left = calls;
            this.cycle = cycle;
            this.done = done;
            this.failure = failure;
        }

        void next() {
            if (left-- == 0) {
                done.countDown();
                return;
            }
            call(TitanicServer.REQUEST, Frames.of(cycle ? SERVICE : NOBODY, BODY)).thenAccept(r -> {
                byte[] uuid = r.body().frame(1);
                if (cycle) {
                    client.eventLoop().schedule(() -> poll(uuid), FIRST_POLL_MS, TimeUnit.MILLISECONDS);
                } else {
                    next();
                }
            });
        }

        void poll(byte[] uuid) {
            client.request(TitanicServer.REPLY, null, Frames.of(uuid)).whenComplete((r, e) -> {
                if (e != null) {
                    fail(e);
                } else if (r.body().isEmpty()) {
                    fail(new IllegalStateException("empty answer"));
                } else if (java.util.Arrays.equals(r.body().frame(0), OK)) {
                    call(TitanicServer.CLOSE, Frames.of(uuid)).thenRun(this::next);
                } else {
                    client.eventLoop().schedule(() -> poll(uuid), REPOLL_MS, TimeUnit.MILLISECONDS);
                }
            });
        }

        CompletableFuture<MajordomoReply> call(String service, Frames frames) {
            return client.request(service, null, frames).whenComplete((r, e) -> {
                if (e != null) {
                    fail(e);
                } else if (r.body().isEmpty() || !java.util.Arrays.equals(r.body().frame(0), OK)) {
                    fail(new IllegalStateException(service + " answered " + r));
                }
            }).thenApply(r -> r);
        }

        void fail(Throwable e) {
            failure.compareAndSet(null, e);
            while (done.getCount() > 0) {
                done.countDown();
            }
        }
    }
}
