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
 * Which released messages go back to the pool of the event loop that made them. One that stayed
 * on its loop does, over inproc:// and as decoded from tcp://, and so does one an application's
 * thread released; one that passed between two loops through inproc:// does not, unless the
 * setting says so. Message objects are pooled only when the leak detector is below paranoid
 * level, and tests run at paranoid level, so this runs a child JVM with the detector off.
 */
class MessageReuseTest {

    @Test
    void aMessageThatCrossedLoopsIsNotReusedOneThatStayedIs() throws Exception {
        String out = runProbe("-Dzmtp.messagePool.reuseAcrossThreads=false");
        // the first line shows that this test can see reuse at all
        assertTrue(out.contains("inproc, same loop: reused true"), out);
        assertTrue(out.contains("inproc, across loops: reused false"), out);
        assertTrue(out.contains("tcp, released on its loop: reused true"), out);
        assertTrue(out.contains("tcp, released on another thread: reused true"), out);
    }

    @Test
    void theSettingBringsReuseAcrossLoopsBack() throws Exception {
        String out = runProbe("-Dzmtp.messagePool.reuseAcrossThreads=true");
        assertTrue(out.contains("inproc, same loop: reused true"), out);
        assertTrue(out.contains("inproc, across loops: reused true"), out);
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

    /**
     * The child: sends one message through each path, then looks for the received object among
     * what the loop that made it hands out.
     */
    static final class Probe {
        public static void main(String[] args) throws Exception {
            ZmtpContext ctx = ZmtpContext.create(2);
            try {
                EventLoop a = ctx.group().next();
                EventLoop b = ctx.group().next();
                if (a == b) {
                    throw new IllegalStateException("one loop only");
                }
                // over inproc the receiver gets the sender's object; over tcp the receiver's loop decodes a new one
                System.out.println("inproc, same loop: reused " + reusedAfterHop(ctx, a, a, a, "inproc://reuse-same", false));
                System.out.println("inproc, across loops: reused " + reusedAfterHop(ctx, a, b, a, "inproc://reuse-across", false));
                System.out.println("tcp, released on its loop: reused " + reusedAfterHop(ctx, a, b, b, "tcp://127.0.0.1:0", false));
                System.out.println("tcp, released on another thread: reused "
                        + reusedAfterHop(ctx, a, b, b, "tcp://127.0.0.1:0", true));
            } finally {
                ctx.close();
            }
        }

        private static boolean reusedAfterHop(ZmtpContext ctx, EventLoop sender, EventLoop receiver, EventLoop maker,
                                              String endpoint, boolean releaseOnAnotherThread) throws Exception {
            ZmtpSocket pull = ctx.socket(SocketType.PULL, SocketOptions.builder().build(), receiver);
            CompletableFuture<ZmtpMessage> released = new CompletableFuture<>();
            pull.onMessage(m -> {
                if (releaseOnAnotherThread) {
                    Thread t = new Thread(() -> {
                        m.release();
                        released.complete(m);
                    });
                    t.start();
                } else {
                    m.release();
                    released.complete(m);
                }
            });
            String bound = pull.bind(endpoint).get(10, TimeUnit.SECONDS);
            ZmtpSocket push = ctx.socket(SocketType.PUSH, SocketOptions.builder().build(), sender);
            push.connect(bound).get(10, TimeUnit.SECONDS);
            sender.submit(() -> push.send(ZmtpMessage.ofStrings("hop"))) // waits for the peer if it is not attached yet
                    .get(10, TimeUnit.SECONDS);
            ZmtpMessage received = released.get(10, TimeUnit.SECONDS);
            try {
                // More messages than a pool can hold: if the object went back to the maker's pool, one of them is it.
                return maker.submit(() -> {
                    List<ZmtpMessage> drawn = new ArrayList<>();
                    boolean found = false;
                    for (int i = 0; i < 4 * ZmtpMessage.DEFAULT_POOL_PER_THREAD; i++) {
                        ZmtpMessage m = ZmtpMessage.newMessage();
                        found |= m == received;
                        drawn.add(m);
                    }
                    drawn.forEach(m -> m.doNotReuse().release()); // leaves the pool empty for the next case
                    return found;
                }).get(10, TimeUnit.SECONDS);
            } finally {
                push.close();
                pull.close();
            }
        }
    }
}
