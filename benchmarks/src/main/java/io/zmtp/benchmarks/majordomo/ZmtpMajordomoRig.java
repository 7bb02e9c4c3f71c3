package io.zmtp.benchmarks.majordomo;

import io.zmtp.patterns.majordomo.MajordomoAsyncClient;
import io.zmtp.patterns.majordomo.MajordomoBroker;
import io.zmtp.patterns.majordomo.MajordomoBrokerSettings;
import io.zmtp.patterns.majordomo.MajordomoClient;
import io.zmtp.patterns.majordomo.MajordomoClientSettings;
import io.zmtp.patterns.majordomo.MajordomoHandler;
import io.zmtp.patterns.majordomo.MajordomoReply;
import io.zmtp.patterns.majordomo.MajordomoWorker;
import io.zmtp.patterns.majordomo.MajordomoWorkerSettings;
import io.zmtp.patterns.majordomo.MdpVersion;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.Frames;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The rig on this library: {@link MajordomoBroker}, {@link MajordomoWorker}s (echo on their event
 * loop, as echo never blocks), and {@link MajordomoClient} / {@link MajordomoAsyncClient}, all
 * MDP/0.1 as in the guide; one context of one event loop each for broker, workers and client.
 */
final class ZmtpMajordomoRig implements MajordomoRig {
    private ZmtpContext brokerCtx;
    private ZmtpContext workerCtx;
    private ZmtpContext clientCtx;
    private MajordomoBroker broker;
    private final List<MajordomoWorker> workers = new ArrayList<>();
    private MajordomoClient client;
    private MajordomoAsyncClient asyncClient;
    private final Frames body = Frames.of(BODY);

    @Override
    public void start(int n) throws Exception {
        brokerCtx = ZmtpContext.create(1);
        workerCtx = ZmtpContext.create(1);
        clientCtx = ZmtpContext.create(1);
        broker = new MajordomoBroker(brokerCtx, MajordomoBrokerSettings.builder().endpoints("tcp://127.0.0.1:0")
                .maxQueuedRequests(10_000_000).maxQueuedRequestsPerClient(10_000_000)
                .maxQueuedBytesPerService(1L << 30).maxQueuedBytes(1L << 30).build());
        broker.start().toCompletableFuture().get(10, TimeUnit.SECONDS);
        String endpoint = broker.endpoint();
        startEchoWorkers(workerCtx, broker, n, workers);
        MajordomoClientSettings cs = MajordomoClientSettings.builder().version(MdpVersion.V0_1)
                .timeout(Duration.ofSeconds(30)).build();
        client = new MajordomoClient(clientCtx, endpoint, cs);
        client.start().toCompletableFuture().get(10, TimeUnit.SECONDS);
        asyncClient = new MajordomoAsyncClient(clientCtx, endpoint, cs);
        asyncClient.start().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /**
     * Starts {@code n} MDP/0.1 echo workers of {@link #SERVICE} on {@code ctx} (echo on their event
     * loop, as echo never blocks), adds them to {@code into}, and waits until the broker has them all.
     */
    static void startEchoWorkers(ZmtpContext ctx, MajordomoBroker broker, int n, List<MajordomoWorker> into)
            throws InterruptedException {
        MajordomoWorkerSettings ws = MajordomoWorkerSettings.builder().version(MdpVersion.V0_1)
                .executor(Runnable::run).build();
        for (int i = 0; i < n; i++) {
            MajordomoWorker w = new MajordomoWorker(ctx, broker.endpoint(), SERVICE, MajordomoHandler.echo(), ws);
            w.start();
            into.add(w);
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (broker.workerCount(SERVICE) < n) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("workers did not register: " + broker.workerCount(SERVICE)
                        + " of " + n);
            }
            Thread.sleep(n > 100 ? 10 : 1);
        }
    }

    @Override
    public long synchronous(int n) {
        long replies = 0;
        for (int i = 0; i < n; i++) {
            if (client.request(SERVICE, null, body).isFinal()) {
                replies++;
            }
        }
        return replies;
    }

    @Override
    public long asynchronous(int n) {
        for (int i = 0; i < n; i++) {
            asyncClient.send(SERVICE, body);
        }
        long replies = 0;
        for (int i = 0; i < n; i++) {
            MajordomoReply r = asyncClient.receive(Duration.ofSeconds(60));
            if (r == null) {
                throw new IllegalStateException("no reply after " + replies);
            }
            replies++;
        }
        return replies;
    }

    @Override
    public void close() {
        if (client != null) {
            client.close();
            asyncClient.close();
        }
        close(workers, broker, clientCtx, workerCtx, brokerCtx);
    }

    /** Closes the workers, then the broker, then the contexts in order; any may be null (a start that failed). */
    static void close(List<MajordomoWorker> workers, MajordomoBroker broker, ZmtpContext... contexts) {
        for (MajordomoWorker w : workers) {
            w.close();
        }
        if (broker != null) {
            broker.close();
        }
        for (ZmtpContext c : contexts) {
            if (c != null) {
                c.close(Duration.ofSeconds(5));
            }
        }
    }
}
