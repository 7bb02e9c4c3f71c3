package io.zmtp.benchmarks.majordomo;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.util.internal.PlatformDependent;
import io.zmtp.patterns.majordomo.MajordomoBroker;
import io.zmtp.patterns.majordomo.MajordomoBrokerSettings;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * What a flood of requests to one slow service costs the Majordomo broker: bytes of broker memory
 * per queued request, and the round-trip latency (p50/p99) of another client on another service
 * meanwhile. Not a JMH benchmark: one run, figures printed.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.zmtp.benchmarks.majordomo.BrokerFloodBenchmark [requests] [clients] [messagesPerTurn] [endpoint|-] [apart]
 * </pre>
 *
 * {@code messagesPerTurn} sets the broker socket's {@code SocketOptions.messagesPerTurn} (default:
 * the library's default; 0 turns the limit off, for comparison).
 *
 * <p>With a fifth argument, the endpoint of a broker running in another process (ours:
 * {@code java -jar zmtp-cli/target/zmtp.jar mdbroker -e tcp://127.0.0.1:5555}; the guide's design
 * on libzmq: {@code /usr/bin/python3 interop-tests/src/test/resources/peers/mdp_broker.py
 * tcp://127.0.0.1:5555 --heartbeat 1000}), the program measures that broker instead of starting
 * one: the probe's latency only (the memory figure needs the broker in this process), with the
 * flooders, workers and probe here and the broker's process on its own, as a deployed broker
 * would be. The flood has ended for the figures when the flood thread has sent everything and the
 * probe's round trips are back under 5 ms; 200 more round trips follow.
 * {@code messagesPerTurn} is then ignored (give "-").
 *
 * <p>With a sixth argument {@code apart}, the flooders run in a JVM of their own (started by this
 * program with its class path), so that their sending and its garbage collections do not pause
 * the probe's process: the probe then measures the broker, not the load generator beside it. The
 * flood ends for the figures once that process has sent everything and exited. The fifth argument
 * may be "-" (the broker in this process). {@code -Dflood.warmups=N} sends N whole floods, in
 * processes of their own, before the quiet and measured phases (a warm broker, as one that has run
 * for a while; the figures of a freshly started JVM include its just-in-time compilation).
 *
 * Setup, all MDP/0.2 over loopback tcp, raw DEALER sockets for every peer except the broker (so the
 * program runs unchanged against older versions of the broker): the broker on a context of its
 * own (one event loop); a worker for {@code slow} that takes one request and never answers (so
 * every further request queues); an echo worker for {@code echo}; {@code clients} flooding clients
 * (on a context of their own) that send {@code requests} requests of 16 bytes in all to
 * {@code slow} (defaults 200,000 and 400), round-robin over the clients; one probe client that sends one request to {@code echo} at a time, before (quiet) and during
 * the flood. Memory: heap used (after full GCs) plus the direct memory of Netty's allocator and of
 * the JDK, before the flood and once every request is queued, divided by the requests queued.
 */
public final class BrokerFloodBenchmark {
    private static final byte[] C2 = "MDPC02".getBytes();
    private static final byte[] W2 = "MDPW02".getBytes();

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals(FLOOD_ROLE)) {
            floodProcess(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]));
            return;
        }
        int requests = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int clients = args.length > 1 ? Integer.parseInt(args[1]) : 400;
        SocketOptions brokerOptions = args.length > 2 && !args[2].equals("-")
                ? SocketOptions.builder().messagesPerTurn(Integer.parseInt(args[2])).build()
                : SocketOptions.DEFAULTS;
        String external = args.length > 3 && !args[3].equals("-") ? args[3] : null;
        boolean floodApart = args.length > 4 && args[4].equals("apart");
        int perClient = requests / clients;
        requests = perClient * clients;
        try (ZmtpContext brokerCtx = ZmtpContext.create(1);
             ZmtpContext peerCtx = ZmtpContext.create(1);
             ZmtpContext floodCtx = ZmtpContext.create(1)) {
            MajordomoBroker broker = null;
            String endpoint;
            if (external == null) {
                broker = new MajordomoBroker(brokerCtx, MajordomoBrokerSettings.builder()
                        .endpoints("tcp://127.0.0.1:0")
                        .maxQueuedRequests(10_000_000).requestExpiry(Duration.ofMinutes(10))
                        .socketOptions(brokerOptions).build());
                System.out.printf("broker messagesPerTurn: %d%n", brokerOptions.messagesPerTurn());
                broker.start().toCompletableFuture().get(10, TimeUnit.SECONDS);
                endpoint = broker.endpoint();
            } else {
                endpoint = external;
                System.out.printf("broker in another process at %s%n", external);
            }
            SocketOptions opts = SocketOptions.builder().sendHwm(100_000).receiveHwm(100_000).build();

            ZmtpSocket slow = worker(peerCtx, opts, endpoint, "slow", false);
            ZmtpSocket echo = worker(peerCtx, opts, endpoint, "echo", true);
            MajordomoBroker ours = broker;
            if (ours != null) {
                waitFor(() -> ours.workerCount() == 2, "workers");
            }

            BlockingQueue<ZmtpMessage> probeReplies = new ArrayBlockingQueue<>(16);
            ZmtpSocket probe = peerCtx.socket(SocketType.DEALER, opts);
            probe.onMessage(probeReplies::add);
            probe.connect(endpoint).syncUninterruptibly();

            // Warm up (with whole unmeasured floods first, if asked), then the quiet latency.
            for (int w = 0; w < WARMUP_FLOODS; w++) {
                Process p = startFloodProcess(endpoint, requests, clients);
                p.getOutputStream().write('\n');
                p.getOutputStream().flush();
                latency(probe, probeReplies, Integer.MAX_VALUE, System.nanoTime() + TimeUnit.SECONDS.toNanos(120),
                        () -> !p.isAlive() && lastLatency < 5_000_000L);
                System.out.printf("warm-up flood %d of %d done%n", w + 1, WARMUP_FLOODS);
            }
            latency(probe, probeReplies, 5_000, Long.MAX_VALUE);
            long[] quiet = latency(probe, probeReplies, 5_000, Long.MAX_VALUE);

            long before = ours != null ? memory() : 0;

            List<ZmtpSocket> flooders = new ArrayList<>();
            Thread flood;
            if (floodApart) {
                // The flooders in a JVM of their own: their sends and collections do not share
                // this process (and its probe) with them.
                Process child = startFloodProcess(endpoint, requests, clients);
                flood = new Thread(() -> {
                    try {
                        child.getOutputStream().write('\n'); // go
                        child.getOutputStream().flush();
                        child.waitFor();
                    } catch (IOException | InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                });
                System.out.printf("flooders in another process%n");
            } else {
                for (int c = 0; c < clients; c++) {
                    ZmtpSocket s = floodCtx.socket(SocketType.DEALER, opts);
                    s.onMessage(ZmtpMessage::release); // refusals, if the broker answers them
                    s.connect(endpoint).syncUninterruptibly();
                    flooders.add(s);
                }
                Thread.sleep(500); // connections up before the flood (a benchmark, not a test)
                flood = new Thread(() -> sendFlood(flooders, perClient));
            }
            int total = requests;
            long floodStart = System.nanoTime();
            flood.start();
            // Probe while the flood arrives and is queued.
            long[] during = latency(probe, probeReplies, Integer.MAX_VALUE, floodStart + TimeUnit.SECONDS.toNanos(60),
                    ours != null ? () -> !flood.isAlive() && queuedNow(ours) >= 0
                            : () -> !flood.isAlive() && lastLatency < 5_000_000L);
            long floodNanos = System.nanoTime() - floodStart;
            flood.join();
            int queued = ours != null ? ours.queuedRequests("slow") : -1;
            Thread.sleep(1000); // the refusals, if any, are out
            long after = ours != null ? memory() : 0;

            System.out.printf("flood: %d requests of 16 B from %d clients to 'slow' queued %d in %d ms%n",
                    total, clients, queued, floodNanos / 1_000_000);
            if (ours != null) {
                System.out.printf("broker memory per queued request: %.0f B (heap + direct: %d -> %d)%n",
                        (after - before) / (double) Math.max(1, queued), before, after);
            }
            System.out.printf("probe on 'echo' quiet:        n=%d p50=%.3f ms p99=%.3f ms max=%.3f ms%n",
                    quiet.length, pct(quiet, 50), pct(quiet, 99), pct(quiet, 100));
            System.out.printf("probe on 'echo' during flood: n=%d p50=%.3f ms p99=%.3f ms max=%.3f ms%n",
                    during.length, pct(during, 50), pct(during, 99), pct(during, 100));

            for (ZmtpSocket s : flooders) {
                s.close(Duration.ZERO);
            }
            probe.close(Duration.ZERO);
            slow.close(Duration.ZERO);
            echo.close(Duration.ZERO);
            if (ours != null) {
                ours.close();
            }
        }
    }

    /**
     * Whole floods sent before the measured one ({@code -Dflood.warmups=N}, default 0; the
     * flooders then run apart, as with {@code apart}): a broker that has run for a while has its
     * queueing code compiled, a freshly started JVM does not.
     */
    private static final int WARMUP_FLOODS = Integer.getInteger("flood.warmups", 0);

    /** Starts the flooders' process and waits until it has connected; a line on its stdin starts the flood. */
    private static Process startFloodProcess(String endpoint, int requests, int clients) throws IOException {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx2g", "-cp", System.getProperty("java.class.path"), BrokerFloodBenchmark.class.getName(),
                FLOOD_ROLE, endpoint, Integer.toString(requests), Integer.toString(clients))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null && !line.equals("connected")) {
            // the child's other output
        }
        if (line == null) {
            throw new IllegalStateException("the flooders' process ended before it connected");
        }
        return p;
    }

    /** The first argument of the flooders' own process. */
    private static final String FLOOD_ROLE = "--flood-process";

    private static void sendFlood(List<ZmtpSocket> flooders, int perClient) {
        byte[] body = new byte[16];
        for (int i = 0; i < perClient; i++) {
            for (ZmtpSocket s : flooders) {
                s.send(ZmtpMessage.of(C2, new byte[] {1}, "slow".getBytes(), body));
            }
        }
    }

    /**
     * The flooders' process: connects, prints "connected", floods when a line arrives on stdin,
     * and exits once every request is out (each socket closed with a linger that lets it finish).
     */
    private static void floodProcess(String endpoint, int requests, int clients) throws Exception {
        SocketOptions opts = SocketOptions.builder().sendHwm(100_000).receiveHwm(100_000)
                .linger(Duration.ofSeconds(60)).build();
        try (ZmtpContext ctx = ZmtpContext.create(1)) {
            List<ZmtpSocket> flooders = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                ZmtpSocket s = ctx.socket(SocketType.DEALER, opts);
                s.onMessage(ZmtpMessage::release);
                s.connect(endpoint).syncUninterruptibly();
                flooders.add(s);
            }
            Thread.sleep(500); // connections up before the flood (a benchmark, not a test)
            System.out.println("connected");
            System.out.flush();
            if (System.in.read() < 0) {
                return;
            }
            sendFlood(flooders, requests / clients);
            for (ZmtpSocket s : flooders) {
                s.close(Duration.ofSeconds(60)).syncUninterruptibly();
            }
        }
    }

    private static int lastQueued = -1;
    /** The probe's last round trip (ns), for the end of the flood at an external broker. */
    private static volatile long lastLatency = Long.MAX_VALUE;

    /** The queue length once it stopped changing between two looks (the flood has been handled). */
    private static int queuedNow(MajordomoBroker broker) {
        int q = broker.queuedRequests("slow");
        int last = lastQueued;
        lastQueued = q;
        return q == last ? q : -2;
    }

    private static ZmtpSocket worker(ZmtpContext ctx, SocketOptions opts, String endpoint, String service,
                                     boolean answer) {
        ZmtpSocket w = ctx.socket(SocketType.DEALER, opts);
        w.onMessage(m -> {
            try {
                if (answer && m.size() >= 5 && m.frame(1).getByte(m.frame(1).readerIndex()) == 2) {
                    ZmtpMessage r = ZmtpMessage.of(W2, new byte[] {4}, m.frameBytes(2), new byte[0], m.frameBytes(4));
                    w.trySend(r);
                }
            } finally {
                m.release();
            }
        });
        w.connect(endpoint).syncUninterruptibly();
        w.send(ZmtpMessage.of(W2, new byte[] {1}, service.getBytes()));
        w.scheduleAtFixedRate(() -> w.trySend(ZmtpMessage.of(W2, new byte[] {5})),
                Duration.ofSeconds(1), Duration.ofSeconds(1));
        return w;
    }

    private static long[] latency(ZmtpSocket probe, BlockingQueue<ZmtpMessage> replies, int n, long deadline)
            throws InterruptedException {
        return latency(probe, replies, n, deadline, () -> false);
    }

    /** Sequential round trips until n, the deadline, or done (and at least 200 after done turned true). */
    private static long[] latency(ZmtpSocket probe, BlockingQueue<ZmtpMessage> replies, int n, long deadline,
                                  java.util.function.BooleanSupplier done) throws InterruptedException {
        long[] l = new long[1 << 20];
        int k = 0;
        int after = -1;
        while (k < n && k < l.length && System.nanoTime() < deadline) {
            long t0 = System.nanoTime();
            probe.send(ZmtpMessage.of(C2, new byte[] {1}, "echo".getBytes(), "ping".getBytes()));
            ZmtpMessage r = replies.poll(30, TimeUnit.SECONDS);
            if (r == null) {
                throw new IllegalStateException("probe: no reply within 30 s");
            }
            r.release();
            l[k++] = System.nanoTime() - t0;
            lastLatency = l[k - 1];
            if (after < 0 && (k & 63) == 0 && done.getAsBoolean()) {
                after = k;
            }
            if (after >= 0 && k - after >= 200) {
                break;
            }
        }
        return Arrays.copyOf(l, k);
    }

    private static double pct(long[] l, int p) {
        long[] s = l.clone();
        Arrays.sort(s);
        int i = Math.min(s.length - 1, (int) Math.ceil(p / 100.0 * s.length) - 1);
        return s[Math.max(0, i)] / 1e6;
    }

    private static long memory() throws InterruptedException {
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(200);
        }
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        long nettyDirect = ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider
                ? ((ByteBufAllocatorMetricProvider) ByteBufAllocator.DEFAULT).metric().usedDirectMemory() : 0;
        long jdkDirect = 0;
        for (BufferPoolMXBean b : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (b.getName().equals("direct")) {
                jdkDirect = b.getMemoryUsed();
            }
        }
        long unpooled = PlatformDependent.usedDirectMemory();
        // Netty's pooled direct memory is in jdkDirect, or in usedDirectMemory() without a cleaner.
        return heap + Math.max(nettyDirect, jdkDirect + Math.max(0, unpooled));
    }

    private static void waitFor(java.util.function.BooleanSupplier c, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!c.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out waiting for " + what);
            }
            Thread.sleep(5);
        }
    }
}
