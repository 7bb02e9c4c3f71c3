package io.zmtp.figures;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocatorMetric;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Figures for the hostile-peer findings: for each attack, the memory the server process holds
 * and a good peer's round-trip latency, before the attack, during it, and after the attacker left.
 * One ROUTER echo server (one event loop), one good DEALER on the same socket, attackers as raw
 * tcp sockets on loopback; every attack is bounded in bytes and time. Uses only the public API, so
 * the same file measures a build before the fixes and after.
 *
 * <pre>
 * mvn -B -ntp -q -o -pl zmtp-socket -am test-compile
 * java -Xmx4g -cp zmtp-socket/target/classes:zmtp-socket/target/test-classes:$(cat /tmp/cp.txt) \
 *     io.zmtp.figures.WireAttackFigures [ping|empty|metadata|partial|log ...]
 * </pre>
 * ({@code /tmp/cp.txt} from {@code mvn -o -q -pl zmtp-socket dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt}.)
 * Memory is Netty's pooled allocator (bytes in use in its arenas) plus the Java heap in use after
 * a collection; latency is microseconds per round trip of a 16-byte message.
 */
public final class WireAttackFigures {
    static final Duration T = Duration.ofSeconds(5);
    static final int ROUND_TRIPS = 500;

    public static void main(String[] args) throws Exception {
        List<String> which = args.length == 0 ? List.of("ping", "empty", "metadata", "partial", "log") : Arrays.asList(args);
        System.out.printf("%-9s | %-6s | %9s | %9s | %9s | %s%n", "attack", "phase", "pool MiB", "heap MiB",
                "rtt p50", "rtt p99 / max (us)");
        for (String w : which) {
            switch (w) {
                case "ping": ping(); break;
                case "empty": empty(); break;
                case "metadata": metadata(); break;
                case "partial": partial(); break;
                case "log": log(); break;
                default: throw new IllegalArgumentException(w);
            }
        }
        System.out.flush();
        System.exit(0); // an event loop a blocked logger holds (the log attack before the fix) never ends
    }

    // ------------------------------------------------------------------ attacks

    /** 2,000,000 PINGs (16 MB) from a peer that never reads. */
    static void ping() throws Exception {
        try (Server s = new Server()) {
            s.report("ping", "before");
            Attacker a = new Attacker(s.port, 4096);
            a.send(greetingAndReady());
            byte[] pings = new byte[2_000_000 * 8];
            for (int i = 0; i < pings.length; i += 8) {
                pings[i] = 0x04; pings[i + 1] = 6; pings[i + 2] = 4;
                pings[i + 3] = 'P'; pings[i + 4] = 'I'; pings[i + 5] = 'N'; pings[i + 6] = 'G';
            }
            // the last byte of each is the TTL's first byte: PING with a 1-byte "TTL" is tolerated
            Thread t = a.sendAsync(pings, frame(false, "end"));
            Latency during = s.roundTrips(ROUND_TRIPS);
            t.join(30_000);
            s.ends.await(30, TimeUnit.SECONDS);
            s.report("ping", "during", during);
            a.close();
            s.settle();
            s.report("ping", "after");
        }
    }

    /** 20,000,000 empty MORE frames (40 MB) in one message. */
    static void empty() throws Exception {
        try (Server s = new Server()) {
            s.report("empty", "before");
            Attacker a = new Attacker(s.port, 0);
            a.send(greetingAndReady());
            byte[] chunk = new byte[2 * 1_000_000];
            for (int i = 0; i < chunk.length; i += 2) {
                chunk[i] = 0x01;
            }
            byte[][] parts = new byte[20][];
            Arrays.fill(parts, chunk);
            Thread t = a.sendAsync(parts);
            Latency during = s.roundTrips(ROUND_TRIPS);
            t.join(60_000);
            s.settle();
            s.report("empty", "during", during);
            a.close();
            s.settle();
            s.report("empty", "after");
        }
    }

    /** Three connections in turn, each a READY of 6,000 properties (60 KB, under the 64 KiB metadata limit). */
    static void metadata() throws Exception {
        ByteArrayOutputStream props = new ByteArrayOutputStream();
        writeProperty(props, "Socket-Type", "DEALER");
        for (int i = 0; i < 6000; i++) {
            writeProperty(props, "X" + i, "");
        }
        byte[] ready = command("READY", props.toByteArray());
        try (Server s = new Server()) {
            s.report("metadata", "before");
            List<Attacker> attackers = new ArrayList<>();
            Thread t = new Thread(() -> {
                try {
                    for (int i = 0; i < 3; i++) {
                        Attacker a = new Attacker(s.port, 0);
                        attackers.add(a);
                        a.send(concat(greeting(), ready));
                        Thread.sleep(300);
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            t.start();
            Latency during = s.roundTrips(ROUND_TRIPS * 4);
            t.join();
            s.report("metadata", "during", during);
            for (Attacker a : attackers) {
                a.close();
            }
            s.settle();
            s.report("metadata", "after");
        }
    }

    /** Eight peers, each sending 60 MiB of a 64 MiB frame and never the rest. */
    static void partial() throws Exception {
        try (Server s = new Server()) {
            s.report("partial", "before");
            List<Attacker> attackers = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            byte[] body = new byte[60 * 1024 * 1024];
            for (int i = 0; i < 8; i++) {
                Attacker a = new Attacker(s.port, 0);
                attackers.add(a);
                a.send(greetingAndReady());
                byte[] header = {0x02, 0, 0, 0, 0, 0x04, 0, 0, 0}; // long frame of 64 MiB
                threads.add(a.sendAsync(header, body));
            }
            Latency during = s.roundTrips(ROUND_TRIPS);
            for (Thread t : threads) {
                t.join(10_000); // after the fix most stay blocked: their connections are paused
            }
            s.settle();
            s.report("partial", "during", during);
            for (Attacker a : attackers) {
                a.close();
            }
            s.settle();
            s.report("partial", "after");
        }
    }

    /** stderr blocked (a pipe nobody reads), then 50 connections that fail their greeting. */
    static void log() throws Exception {
        PrintStream original = System.err;
        CountDownLatch unblock = new CountDownLatch(1);
        Server s = new Server();
        s.report("log", "before");
        System.setErr(new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                try {
                    unblock.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }, true));
        try {
            for (int i = 0; i < 50; i++) {
                Attacker a = new Attacker(s.port, 0);
                a.send(new byte[] {0x00, 0x00});
                a.close();
            }
            Latency during = s.roundTrips(ROUND_TRIPS);
            s.report("log", "during", during);
        } finally {
            unblock.countDown();
            System.setErr(original);
        }
        // not closed: before the fix its loop may still be stuck in the logger (main exits)
    }

    // ------------------------------------------------------------------ the server and the peers

    static final class Server implements AutoCloseable {
        final ZmtpContext ctx = ZmtpContext.create(1);
        final ZmtpSocket router = ctx.socket(SocketType.ROUTER);
        final BlockingSocket good;
        final CountDownLatch ends = new CountDownLatch(1);
        final int port;

        Server() throws Exception {
            router.onMessage(m -> {
                if (m.size() == 2 && "end".equals(m.frameString(1))) {
                    m.release();
                    ends.countDown();
                } else {
                    router.send(m);
                }
            });
            String ep = router.bind("tcp://127.0.0.1:0").get(5, TimeUnit.SECONDS);
            port = Integer.parseInt(ep.substring(ep.lastIndexOf(':') + 1));
            good = ctx.blocking(SocketType.DEALER).connect(ep);
            roundTrips(200); // warm up
        }

        /** {@code n} round trips of the good peer; a round trip that takes over 5 s ends the series. */
        Latency roundTrips(int n) {
            long[] us = new long[n];
            int done = 0;
            for (int i = 0; i < n; i++) {
                long t0 = System.nanoTime();
                good.send("round trip " + (1_000_000 + i));
                ZmtpMessage m = good.receive(T);
                if (m == null) {
                    break;
                }
                m.release();
                us[done++] = (System.nanoTime() - t0) / 1000;
            }
            return new Latency(Arrays.copyOf(us, done), n);
        }

        /**
         * Waits until the server has dealt with what arrived: the pool's memory in use stays the
         * same over 50 ms (at most 5 s), instead of a fixed pause before a reading.
         */
        void settle() throws InterruptedException {
            PooledByteBufAllocatorMetric pm = PooledByteBufAllocator.DEFAULT.metric();
            long deadline = System.nanoTime() + 5_000_000_000L;
            long last = -1;
            while (System.nanoTime() < deadline) {
                long now = pm.usedDirectMemory() + pm.usedHeapMemory();
                if (now == last) {
                    return;
                }
                last = now;
                Thread.sleep(50);
            }
        }

        void report(String attack, String phase) {
            report(attack, phase, roundTrips(ROUND_TRIPS));
        }

        void report(String attack, String phase, Latency l) {
            for (int i = 0; i < 3; i++) {
                System.gc();
            }
            PooledByteBufAllocatorMetric pm = PooledByteBufAllocator.DEFAULT.metric();
            double pool = (pm.usedDirectMemory() + pm.usedHeapMemory()) / 1048576.0;
            Runtime rt = Runtime.getRuntime();
            double heap = (rt.totalMemory() - rt.freeMemory()) / 1048576.0;
            System.out.printf("%-9s | %-6s | %9.1f | %9.1f | %9s | %s%n", attack, phase, pool, heap, l.p50(), l.tail());
        }

        @Override
        public void close() {
            good.close(Duration.ZERO);
            ctx.close();
        }
    }

    static final class Latency {
        final long[] us;
        final int wanted;

        Latency(long[] us, int wanted) {
            this.us = us.clone();
            Arrays.sort(this.us);
            this.wanted = wanted;
        }

        String p50() {
            return us.length == 0 ? "none" : Long.toString(us[us.length / 2]);
        }

        String tail() {
            if (us.length < wanted) {
                return us.length + " of " + wanted + " round trips, then none within " + T.toSeconds() + " s";
            }
            return us[(int) (us.length * 0.99)] + " / " + us[us.length - 1];
        }
    }

    static final class Attacker {
        final Socket socket = new Socket();

        Attacker(int port, int receiveBuffer) throws IOException {
            if (receiveBuffer > 0) {
                socket.setReceiveBufferSize(receiveBuffer);
            }
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        }

        void send(byte[] b) throws IOException {
            socket.getOutputStream().write(b);
            socket.getOutputStream().flush();
        }

        Thread sendAsync(byte[]... parts) {
            Thread t = new Thread(() -> {
                try {
                    for (byte[] p : parts) {
                        send(p);
                    }
                } catch (IOException e) {
                    // the server closed us: expected for some attacks
                }
            }, "attacker");
            t.setDaemon(true);
            t.start();
            return t;
        }

        void close() throws IOException {
            socket.setSoLinger(true, 0);
            socket.close();
        }
    }

    // ------------------------------------------------------------------ bytes (from the spec, by hand)

    static byte[] greeting() {
        byte[] g = new byte[64];
        g[0] = (byte) 0xFF;
        g[9] = 0x7F;
        g[10] = 3;
        g[11] = 1;
        System.arraycopy("NULL".getBytes(StandardCharsets.US_ASCII), 0, g, 12, 4);
        return g;
    }

    static byte[] greetingAndReady() {
        ByteArrayOutputStream p = new ByteArrayOutputStream();
        writeProperty(p, "Socket-Type", "DEALER");
        return concat(greeting(), command("READY", p.toByteArray()));
    }

    static void writeProperty(ByteArrayOutputStream out, String name, String value) {
        byte[] v = value.getBytes(StandardCharsets.UTF_8);
        out.write(name.length());
        out.writeBytes(name.getBytes(StandardCharsets.US_ASCII));
        out.write(v.length >>> 24);
        out.write(v.length >>> 16);
        out.write(v.length >>> 8);
        out.write(v.length);
        out.writeBytes(v);
    }

    static byte[] command(String name, byte[] data) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long size = 1 + name.length() + data.length;
        if (size > 255) {
            out.write(0x06);
            for (int i = 7; i >= 0; i--) {
                out.write((int) (size >>> (8 * i)));
            }
        } else {
            out.write(0x04);
            out.write((int) size);
        }
        out.write(name.length());
        out.writeBytes(name.getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(data);
        return out.toByteArray();
    }

    static byte[] frame(boolean more, String body) {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        byte[] f = new byte[2 + b.length];
        f[0] = (byte) (more ? 1 : 0);
        f[1] = (byte) b.length;
        System.arraycopy(b, 0, f, 2, b.length);
        return f;
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }
}
