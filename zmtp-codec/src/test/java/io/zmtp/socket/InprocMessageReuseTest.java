package io.zmtp.socket;

import io.netty.channel.EventLoop;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A message that passed between two event loops through inproc:// is not put back in its pool
 * when released; one that stayed on its loop is. Message objects are pooled only when the leak
 * detector is below paranoid level, and tests run at paranoid level, so this runs a child JVM
 * with the detector off.
 */
class InprocMessageReuseTest {

    @Test
    void aMessageThatCrossedLoopsIsNotReusedOneThatStayedIs() throws Exception {
        String out = runProbe("-Dzmtp.messagePool.reuseAcrossThreads=false");
        // the first line shows that this test can see reuse at all
        assertTrue(out.contains("same loop: reused true"), out);
        assertTrue(out.contains("across loops: reused false"), out);
    }

    @Test
    void theSettingBringsReuseAcrossLoopsBack() throws Exception {
        String out = runProbe("-Dzmtp.messagePool.reuseAcrossThreads=true");
        assertTrue(out.contains("same loop: reused true"), out);
        assertTrue(out.contains("across loops: reused true"), out);
    }

    /** Runs {@link Probe} in a child JVM with the leak detector off and {@code setting}; returns what it printed. */
    private static String runProbe(String setting) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(java.toString(), "-Xmx256m",
                "-Dio.netty.leakDetection.level=disabled", setting,
                "-cp", System.getProperty("java.class.path"), Probe.class.getName())
                .redirectErrorStream(true)
                .start();
        try {
            // the child prints two short lines (or a stack trace): the pipe cannot fill and block it
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child finished within 60 s");
            String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, child.exitValue(), out);
            return out;
        } finally {
            child.destroyForcibly();
        }
    }

    /** The child: sends one message through each pipe, then looks for that object in the sender's pool. */
    static final class Probe {
        public static void main(String[] args) throws Exception {
            ZmtpContext ctx = ZmtpContext.create(2);
            try {
                EventLoop a = ctx.group().next();
                EventLoop b = ctx.group().next();
                if (a == b) {
                    throw new IllegalStateException("one loop only");
                }
                System.out.println("same loop: reused " + reusedAfterHop(ctx, a, a, "inproc://reuse-same"));
                System.out.println("across loops: reused " + reusedAfterHop(ctx, a, b, "inproc://reuse-across"));
            } finally {
                ctx.close();
            }
        }

        private static boolean reusedAfterHop(ZmtpContext ctx, EventLoop sender, EventLoop receiver, String endpoint)
                throws Exception {
            ZmtpSocket pull = ctx.socket(SocketType.PULL, SocketOptions.builder().build(), receiver);
            CompletableFuture<Void> released = new CompletableFuture<>();
            pull.onMessage(m -> {
                m.release();
                released.complete(null);
            });
            pull.bind(endpoint).get(10, TimeUnit.SECONDS);
            ZmtpSocket push = ctx.socket(SocketType.PUSH, SocketOptions.builder().build(), sender);
            push.connect(endpoint).get(10, TimeUnit.SECONDS);
            ZmtpMessage[] sent = new ZmtpMessage[1];
            sender.submit(() -> {
                sent[0] = ZmtpMessage.ofStrings("hop");
                push.send(sent[0]); // waits for the peer if it is not attached yet
            }).get(10, TimeUnit.SECONDS);
            released.get(10, TimeUnit.SECONDS);
            // More messages than the sender's pool can hold: if the object went back to it, one of them is it.
            return sender.submit(() -> {
                List<ZmtpMessage> drawn = new ArrayList<>();
                boolean found = false;
                for (int i = 0; i < 4 * ZmtpMessage.DEFAULT_POOL_PER_THREAD; i++) {
                    ZmtpMessage m = ZmtpMessage.newMessage();
                    found |= m == sent[0];
                    drawn.add(m);
                }
                drawn.forEach(m -> m.doNotReuse().release()); // leaves the pool empty for the next case
                return found;
            }).get(10, TimeUnit.SECONDS);
        }
    }
}
