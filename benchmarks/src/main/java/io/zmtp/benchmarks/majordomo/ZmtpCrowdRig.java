package io.zmtp.benchmarks.majordomo;

import io.zmtp.patterns.majordomo.MajordomoAsyncClient;
import io.zmtp.patterns.majordomo.MajordomoBroker;
import io.zmtp.patterns.majordomo.MajordomoBrokerSettings;
import io.zmtp.patterns.majordomo.MajordomoClientSettings;
import io.zmtp.patterns.majordomo.MajordomoWorker;
import io.zmtp.patterns.majordomo.MdpVersion;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.Frames;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static io.zmtp.benchmarks.majordomo.MajordomoRig.BODY;
import static io.zmtp.benchmarks.majordomo.MajordomoRig.SERVICE;

/**
 * The crowd on this library, as a user would build it: a {@link MajordomoBroker} with its default
 * settings (but a free port on the loopback), {@link MajordomoWorker}s answering with
 * {@link io.zmtp.patterns.majordomo.MajordomoHandler#echo()} on their event loop, and
 * {@link MajordomoAsyncClient}s whose request futures send the next request as they complete (on
 * the client's loop), all MDP/0.1. Three contexts of one event loop each: the broker alone on
 * one, every worker on the second, every client on the third (two cores: the broker's loop is
 * never shared with its peers').
 */
final class ZmtpCrowdRig implements MajordomoCrowdRig {
    private ZmtpContext brokerCtx;
    private ZmtpContext workerCtx;
    private ZmtpContext clientCtx;
    private MajordomoBroker broker;
    private final List<MajordomoWorker> workers = new ArrayList<>();
    private final List<MajordomoAsyncClient> clients = new ArrayList<>();
    private final Frames body = Frames.of(BODY);
    private final AtomicLong replies = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean running = true;
    /** The broker's one event loop thread. */
    private long brokerThread;

    @Override
    public void start(int nWorkers, int nClients, int window) throws Exception {
        brokerCtx = ZmtpContext.create(1);
        workerCtx = ZmtpContext.create(1);
        clientCtx = ZmtpContext.create(1);
        broker = new MajordomoBroker(brokerCtx,
                MajordomoBrokerSettings.builder().endpoints("tcp://127.0.0.1:0").build());
        broker.start().toCompletableFuture().get(10, TimeUnit.SECONDS);
        brokerThread = brokerCtx.group().next().submit(() -> Thread.currentThread().getId()).get(10, TimeUnit.SECONDS);
        String endpoint = broker.endpoint();
        ZmtpMajordomoRig.startEchoWorkers(workerCtx, broker, nWorkers, workers);
        MajordomoClientSettings cs = MajordomoClientSettings.builder().version(MdpVersion.V0_1)
                .timeout(Duration.ofSeconds(60)).build();
        for (int i = 0; i < nClients; i++) {
            MajordomoAsyncClient c = new MajordomoAsyncClient(clientCtx, endpoint, cs);
            c.start().toCompletableFuture().get(10, TimeUnit.SECONDS);
            clients.add(c);
        }
        for (MajordomoAsyncClient c : clients) {
            for (int i = 0; i < window; i++) {
                next(c);
            }
        }
    }

    /** One request of {@code c}; its reply sends the next, on the client's loop. */
    private void next(MajordomoAsyncClient c) {
        c.request(SERVICE, null, body).whenComplete((r, e) -> {
            if (!running) {
                return;
            }
            if (e != null) {
                failure.compareAndSet(null, e);
                return;
            }
            replies.incrementAndGet();
            next(c);
        });
    }

    @Override
    public long replies() {
        return replies.get();
    }

    @Override
    public long brokerCpuNanos() {
        return MajordomoCrowdRig.cpuNanos(List.of(brokerThread));
    }

    @Override
    public void check() {
        Throwable e = failure.get();
        if (e != null) {
            throw new IllegalStateException("a client failed", e);
        }
    }

    @Override
    public void close() {
        running = false;
        for (MajordomoAsyncClient c : clients) {
            c.close();
        }
        ZmtpMajordomoRig.close(workers, broker, clientCtx, workerCtx, brokerCtx);
    }
}
