package io.zmtp.benchmarks.attacks;

import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.PubSocket;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.SubSocket;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * What one unauthenticated peer's attacks cost a process: heap held, connections held, and a good
 * peer's latency before, during and after each attack. Loopback only, bounded in time and bytes;
 * it uses only the public socket API, so the same file runs against older versions of the
 * library (copy it in) to compare.
 *
 * <pre>
 * mvn -B -ntp -q -o -DskipTests package -pl benchmarks -am
 * java -Xmx1g -Dio.netty.leakDetection.level=disabled -cp benchmarks/target/benchmarks.jar \
 *     io.zmtp.benchmarks.attacks.SocketAttackFigures [subscription-size subscription-count connections routing-ids]
 * </pre>
 *
 * Latency is a good subscriber's one-way PUB to SUB time, or a good REQ client's round trip,
 * median and maximum of 200 messages, each waited for at most 5 s ("lost" otherwise). Heap is
 * the used heap after two full collections.
 */
public final class SocketAttackFigures {
    private static final int SAMPLES = 200;

    public static void main(String[] args) throws Exception {
        List<String> which = args.length == 0
                ? List.of("subscription-size", "subscription-count", "connections", "routing-ids") : Arrays.asList(args);
        for (String w : which) {
            switch (w) {
                case "subscription-size" -> {
                    subscriptionSize(1 << 20);
                    subscriptionSize(8 << 20);
                }
                case "subscription-count" -> subscriptionCount(100_000);
                case "connections" -> connectionFlood(2000);
                case "routing-ids" -> routingIds(11);
                default -> throw new IllegalArgumentException(w);
            }
        }
        System.exit(0);
    }

    // ------------------------------------------------------------------ subscriptions

    static void subscriptionSize(int size) throws Exception {
        byte[] body = new byte[size + 1];
        Arrays.fill(body, (byte) 'z');
        body[0] = 1;
        subscriptionAttack("one subscription of " + (size >> 20) + " MiB", frame(body));
    }

    static void subscriptionCount(int count) throws Exception {
        ByteArrayOutputStream flood = new ByteArrayOutputStream();
        for (int i = 0; i < count; i++) {
            flood.write(frame(("\u0001t" + i).getBytes(StandardCharsets.US_ASCII)));
        }
        subscriptionAttack(count + " subscriptions", flood.toByteArray());
    }

    private static void subscriptionAttack(String name, byte[] attack) throws Exception {
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            PubSocket pub = (PubSocket) ctx.socket(SocketType.PUB);
            String ep = pub.bind("tcp://127.0.0.1:0").get();
            SubSocket sub = (SubSocket) ctx.socket(SocketType.SUB);
            BlockingQueue<Long> arrivals = new ArrayBlockingQueue<>(SAMPLES * 4);
            sub.onMessage(m -> {
                arrivals.offer(System.nanoTime() - m.frame(1).getLong(0));
                m.release();
            });
            sub.subscribe("good").get();
            sub.connect(ep).get();
            waitFor(() -> onLoop(pub, pub::subscriptionCount) == 1, 10_000);
            long heap0 = heap();
            String before = oneWay(pub, arrivals);
            Socket bad = handshaken(ep, null, "SUB");
            Thread writer = new Thread(() -> write(bad, attack));
            writer.start();
            String during = oneWay(pub, arrivals);
            writer.join(60_000);
            // Wait until the PUB took the attack in (it subscribed) or dropped the peer.
            waitFor(() -> onLoop(pub, pub::subscriptionCount) > 1 || closed(bad), 30_000);
            int held = onLoop(pub, pub::subscriptionCount) - 1;
            long heapHeld = heap() - heap0;
            boolean dropped = closed(bad);
            bad.close();
            waitFor(() -> onLoop(pub, pub::subscriptionCount) == 1, 10_000);
            long heapAfter = heap() - heap0;
            String after = oneWay(pub, arrivals);
            System.out.printf("%-32s prefixes held %,d, peer %s; heap held %s, after it left %s; "
                            + "good SUB latency before %s, during %s, after %s%n",
                    name, held, dropped ? "disconnected" : "kept", mib(heapHeld), mib(heapAfter), before, during, after);
        }
    }

    /** A good subscriber's one-way latency over {@link #SAMPLES} messages. */
    private static String oneWay(PubSocket pub, BlockingQueue<Long> arrivals) throws InterruptedException {
        arrivals.clear();
        long[] t = new long[SAMPLES];
        int lost = 0;
        for (int i = 0; i < SAMPLES; i++) {
            ZmtpMessage m = ZmtpMessage.of("good".getBytes(StandardCharsets.US_ASCII), new byte[8]);
            m.frame(1).setLong(0, System.nanoTime());
            pub.send(m);
            Long d = arrivals.poll(5, TimeUnit.SECONDS);
            if (d == null) {
                lost++;
                t[i] = Long.MAX_VALUE;
            } else {
                t[i] = d;
            }
        }
        return summary(t, lost);
    }

    // ------------------------------------------------------------------ connections

    static void connectionFlood(int count) throws Exception {
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            ZmtpSocket rep = ctx.socket(SocketType.REP);
            rep.onMessage(rep::send);
            String ep = rep.bind("tcp://127.0.0.1:0").get();
            BlockingSocket req = ctx.blocking(SocketType.REQ);
            req.connect(ep);
            long heap0 = heap();
            String before = roundTrips(req);
            List<Socket> flood = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                try {
                    flood.add(handshaken(ep, "127.0.0.2", "REQ"));
                } catch (IOException e) {
                    // refused while connecting
                }
            }
            Thread.sleep(1000);   // let the server accept, handshake or refuse them all
            String during = roundTrips(req);
            int held = 0;
            for (Socket s : flood) {
                if (!closed(s)) {
                    held++;
                }
            }
            long heapHeld = heap() - heap0;
            for (Socket s : flood) {
                s.close();
            }
            Thread.sleep(1000);
            String after = roundTrips(req);
            System.out.printf("%-32s connections held %,d; heap held %s; good REQ round trip before %s, during %s, "
                    + "after %s%n", count + " idle connections", held, mib(heapHeld), before, during, after);
            req.close(Duration.ZERO);
        }
    }

    private static String roundTrips(BlockingSocket req) {
        long[] t = new long[SAMPLES];
        int lost = 0;
        for (int i = 0; i < SAMPLES; i++) {
            long start = System.nanoTime();
            req.send("ping");
            List<String> r = req.receiveStrings(Duration.ofSeconds(5));
            if (r == null) {
                return "lost";
            }
            t[i] = System.nanoTime() - start;
        }
        return summary(t, lost);
    }

    // ------------------------------------------------------------------ routing ids

    /** ROUTER routing to 2^blocks inproc DEALERs whose ids collide under Arrays.hashCode, and to random ids. */
    static void routingIds(int blocks) throws Exception {
        int n = 1 << blocks;
        List<String> colliding = new ArrayList<>();
        List<String> random = new ArrayList<>();
        Random r = new Random(1);
        for (int bits = 0; bits < n; bits++) {
            StringBuilder s = new StringBuilder();
            StringBuilder q = new StringBuilder();
            for (int i = 0; i < blocks; i++) {
                s.append((bits >> i & 1) == 0 ? "Aa" : "BB");
                q.append((char) ('a' + r.nextInt(26))).append((char) ('a' + r.nextInt(26)));
            }
            colliding.add(s.toString());
            random.add(q.toString());
        }
        double c = routeCost(colliding);
        double q = routeCost(random);
        System.out.printf("%-32s ROUTER send to one of %,d peers: %.0f ns per message with colliding ids, "
                + "%.0f ns with random ids%n", n + " chosen routing ids", n, c, q);
    }

    private static double routeCost(List<String> ids) throws Exception {
        try (ZmtpContext ctx = ZmtpContext.create(1)) {
            ZmtpSocket router = ctx.socket(SocketType.ROUTER);
            router.bind("inproc://ids").get();
            List<ZmtpSocket> dealers = new ArrayList<>();
            for (String id : ids) {
                ZmtpSocket d = ctx.socket(SocketType.DEALER, SocketOptions.builder().identity(id).build());
                d.onMessage(ZmtpMessage::release);
                d.connect("inproc://ids").get();
                dealers.add(d);
            }
            waitFor(() -> onLoop(router, router::peerCount) == ids.size(), 30_000);
            byte[][] idBytes = new byte[ids.size()][];
            for (int i = 0; i < ids.size(); i++) {
                idBytes[i] = ids.get(i).getBytes(StandardCharsets.US_ASCII);
            }
            long best = Long.MAX_VALUE;
            int rounds = 5;
            int per = 20_000;
            for (int round = 0; round < rounds; round++) {
                long ns = onLoop(router, () -> {
                    long start = System.nanoTime();
                    for (int i = 0; i < per; i++) {
                        router.trySend(ZmtpMessage.of(idBytes[i % idBytes.length], new byte[1]));
                    }
                    return System.nanoTime() - start;
                });
                best = Math.min(best, ns);
                Thread.sleep(200);   // let the dealers drain
            }
            return (double) best / per;
        }
    }

    // ------------------------------------------------------------------ helpers

    private static byte[] frame(byte[] body) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        if (body.length > 255) {
            b.write(0x02);
            for (int i = 7; i >= 0; i--) {
                b.write((int) ((long) body.length >>> (8 * i)));
            }
        } else {
            b.write(0x00);
            b.write(body.length);
        }
        b.writeBytes(body);
        return b.toByteArray();
    }

    private static Socket handshaken(String ep, String source, String type) throws IOException {
        Socket s = new Socket();
        if (source != null) {
            s.bind(new InetSocketAddress(InetAddress.getByName(source), 0));
        }
        s.connect(new InetSocketAddress("127.0.0.1", Integer.parseInt(ep.substring(ep.lastIndexOf(':') + 1))), 5000);
        ByteArrayOutputStream g = new ByteArrayOutputStream();
        g.write(0xFF);
        g.writeBytes(new byte[8]);
        g.write(0x7F);
        g.write(3);
        g.write(1);
        byte[] mech = new byte[20];
        System.arraycopy("NULL".getBytes(StandardCharsets.US_ASCII), 0, mech, 0, 4);
        g.writeBytes(mech);
        g.writeBytes(new byte[32]);
        byte[] name = "Socket-Type".getBytes(StandardCharsets.US_ASCII);
        byte[] value = type.getBytes(StandardCharsets.US_ASCII);
        int size = 1 + 5 + 1 + name.length + 4 + value.length;
        g.write(0x04);
        g.write(size);
        g.write(5);
        g.writeBytes("READY".getBytes(StandardCharsets.US_ASCII));
        g.write(name.length);
        g.writeBytes(name);
        g.writeBytes(new byte[] {0, 0, 0, (byte) value.length});
        g.writeBytes(value);
        s.getOutputStream().write(g.toByteArray());
        return s;
    }

    private static void write(Socket s, byte[] bytes) {
        try {
            OutputStream out = s.getOutputStream();
            out.write(bytes);
            out.flush();
        } catch (IOException e) {
            // the server closed the connection: that is one of the outcomes measured
        }
    }

    /** Whether the other side closed {@code s}: reads what is there, without waiting more than 10 ms. */
    private static boolean closed(Socket s) {
        try {
            s.setSoTimeout(10);
            InputStream in = s.getInputStream();
            byte[] buf = new byte[65536];
            while (true) {
                if (in.read(buf) < 0) {
                    return true;
                }
            }
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    private static <T> T onLoop(ZmtpSocket s, java.util.concurrent.Callable<T> c) {
        try {
            return s.eventLoop().submit(c).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void waitFor(java.util.function.BooleanSupplier cond, long millis) throws InterruptedException {
        long end = System.currentTimeMillis() + millis;
        while (!cond.getAsBoolean() && System.currentTimeMillis() < end) {
            Thread.sleep(10);
        }
    }

    private static long heap() throws InterruptedException {
        for (int i = 0; i < 2; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static String mib(long bytes) {
        return String.format("%.1f MiB", bytes / 1048576.0);
    }

    private static String summary(long[] t, int lost) {
        long[] s = t.clone();
        Arrays.sort(s);
        int ok = s.length - lost;
        if (ok == 0) {
            return "all lost";
        }
        String r = String.format("%.0f/%.0f us", s[ok / 2] / 1000.0, s[ok - 1] / 1000.0);
        return lost > 0 ? r + " (" + lost + " lost)" : r;
    }
}
