package io.zmtp.wire;

import io.zmtp.security.Authenticator;
import io.zmtp.security.PlainMechanism;
import io.zmtp.testing.Await;
import io.zmtp.testing.CodecHarness;
import io.zmtp.testing.PeerBytes;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Finding 7: what a peer causes is logged off the event loop, rate-limited, with every string the
 * peer supplied escaped. The test logger (slf4j-simple) writes to whatever {@code System.err} is
 * when it writes, so the tests capture or block it.
 */
class PeerFailureLogTest {

    static byte[] hello(String user, String password) {
        byte[] u = user.getBytes(StandardCharsets.UTF_8);
        byte[] p = password.getBytes(StandardCharsets.UTF_8);
        byte[] d = new byte[2 + u.length + p.length];
        d[0] = (byte) u.length;
        System.arraycopy(u, 0, d, 1, u.length);
        d[1 + u.length] = (byte) p.length;
        System.arraycopy(p, 0, d, 2 + u.length, p.length);
        return d;
    }

    @Test
    void aUserNameWithALineBreakCannotForgeALogLine() {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            ZmtpOptions server = ZmtpOptions.builder(SocketType.ROUTER)
                    .mechanism(PlainMechanism.server(Authenticator.plainAccounts(Map.of("admin", "secret")))).build();
            String forged = "evil\n12:00:00.000 [main] WARN io.zmtp.Forged - FORGED LINE";
            // WARN lines are rate-limited per logger (other tests may have used the burst): refuse
            // the forger until its line shows up, one attempt per refill period at most.
            Await.until(() -> "the refusal is logged; captured:\n" + captured, () -> {
                try (CodecHarness h = new CodecHarness(server)) {
                    h.feed(PeerBytes.create().greeting(3, 1, "PLAIN", false, 0)
                            .command("HELLO", hello(forged, "wrong")).toArray());
                    assertTrue(h.failure().reason().contains("evil\\x0a12:00"), h.failure().reason());
                    assertFalse(h.failure().reason().contains("\n"), "the event's reason is escaped too");
                }
                for (int i = 0; i < 50 && !captured.toString(StandardCharsets.UTF_8).contains("PLAIN client refused"); i++) {
                    Await.pause();
                }
                return captured.toString(StandardCharsets.UTF_8).contains("PLAIN client refused");
            });
            String log = captured.toString(StandardCharsets.UTF_8);
            for (String line : log.split("\n")) {
                assertFalse(line.startsWith("12:00:00.000") || (line.contains("FORGED LINE") && !line.contains("evil\\x0a")),
                        "a line the peer forged: " + line);
            }
            assertTrue(log.contains("user 'evil\\x0a12:00:00.000 [main] WARN io.zmtp.Forged"), log);
        } finally {
            System.setErr(original);
        }
    }

    /** A logger at DEBUG, so that every call queues a line. */
    static final class Probe {
    }

    @Test
    void aBlockedLogBackendDoesNotBlockTheCaller() throws Exception {
        System.setProperty("org.slf4j.simpleLogger.log." + Probe.class.getName(), "debug");
        PeerFailureLog log = PeerFailureLog.get(Probe.class);
        assertTrue(log.isDebugEnabled());
        PrintStream original = System.err;
        CountDownLatch unblock = new CountDownLatch(1);
        CountDownLatch writerBlocked = new CountDownLatch(1);
        OutputStream stuck = new OutputStream() {
            @Override
            public void write(int b) {
                block();
            }

            @Override
            public void write(byte[] b, int off, int len) {
                block();
            }

            private void block() {
                writerBlocked.countDown();
                try {
                    unblock.await(); // stderr on a pipe that nobody reads
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        System.setErr(new PrintStream(stuck, true));
        try {
            log.debug("first line, which the writer thread gets stuck on");
            assertTrue(writerBlocked.await(10, TimeUnit.SECONDS), "the writer thread is blocked in the backend");
            long droppedBefore = PeerFailureLog.droppedLines();
            int calls = 100_000;
            CountDownLatch done = new CountDownLatch(1);
            Thread caller = new Thread(() -> {
                for (int i = 0; i < calls; i++) {
                    log.warn("peer {} failed: {}", i, "reason");
                    log.debug("peer {} detail", i);
                }
                done.countDown();
            }, "event-loop-stand-in");
            caller.start();
            assertTrue(done.await(Await.DEADLINE.toMillis(), TimeUnit.MILLISECONDS),
                    "the caller finished " + calls + " log calls while the backend was blocked");
            assertTrue(PeerFailureLog.droppedLines() - droppedBefore >= calls - PeerFailureLog.QUEUE_CAPACITY,
                    "lines that did not fit the queue were dropped and counted");
        } finally {
            System.setErr(original);
            unblock.countDown();
        }
    }
}
