package io.zmtp.interop;

import io.zmtp.wire.SocketType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.zmtp.interop.ByteMessages.assertMessage;
import static io.zmtp.interop.ByteMessages.msg;
import static io.zmtp.interop.ByteMessages.subscription;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code java -jar zmtp-cli/target/zmtp.jar cat} as users run it, a process of its own (with
 * Netty's leak detector at paranoid level), against libzmq peers.
 */
class CatCommandInteropTest {
    static final Path JAR = Path.of(System.getProperty("zmtp.jar", "../zmtp-cli/target/zmtp.jar"));
    static LibzmqPeer zmq;
    final List<CatProcess> cats = new ArrayList<>();
    final List<SocketEnd> ends = new ArrayList<>();

    @BeforeAll
    static void startPeer() {
        assertTrue(Files.isRegularFile(JAR), JAR + " is missing: it is built by 'mvn package' (or verify) of zmtp-cli");
        zmq = LibzmqPeer.start();
    }

    @AfterAll
    static void stopPeer() {
        zmq.close();
    }

    @AfterEach
    void stop() {
        cats.forEach(CatProcess::close);
        ends.forEach(SocketEnd::close);
    }

    CatProcess cat(String... args) throws IOException {
        CatProcess c = new CatProcess(args);
        cats.add(c);
        return c;
    }

    SocketEnd.Libzmq libzmq(SocketType type, String identity) {
        SocketEnd.Libzmq e = SocketEnd.libzmq(zmq, type, identity);
        ends.add(e);
        return e;
    }

    @Test
    void catReqAgainstALibzmqRep() throws Exception {
        SocketEnd.Libzmq rep = libzmq(SocketType.REP, null);
        String ep = rep.bind("tcp", null);
        CatProcess req = cat("-t", "REQ", "-c", ep).input("hello\tworld\nsecond\n").endInput();
        assertMessage(msg("hello", "world"), rep.recv(), "libzmq REP got the first line");
        rep.send(msg("hi", "there"));
        assertMessage(msg("second"), rep.recv(), "the second line, after the first reply");
        rep.send(msg("ok"));
        assertEquals("hi\tthere", req.line());
        assertEquals("ok", req.line());
        assertEquals(0, req.exitCode());
    }

    @Test
    void catRouterEchoAgainstLibzmqDealers() throws Exception {
        CatProcess router = cat("-t", "ROUTER", "-b", "tcp://127.0.0.1:0", "--echo", "-n", "3");
        String ep = router.bound();
        SocketEnd.Libzmq d1 = libzmq(SocketType.DEALER, "dealer-1");
        SocketEnd.Libzmq d2 = libzmq(SocketType.DEALER, null);
        d1.connect(ep);
        d2.connect(ep);
        d1.send(msg("a", "", "b"));
        assertMessage(msg("a", "", "b"), d1.recv(), "echo to the named dealer");
        d2.send(msg("anonymous"));
        assertMessage(msg("anonymous"), d2.recv(), "echo to the anonymous dealer");
        d1.send(msg("again"));
        assertMessage(msg("again"), d1.recv(), "echo again");
        assertEquals("dealer-1\ta\t\tb", router.line());
        String anon = router.line();
        assertTrue(anon.matches("0x[0-9a-f]{10}\tanonymous"), "the routing id we generated, in hex: " + anon);
        assertEquals("dealer-1\tagain", router.line());
        assertEquals(0, router.exitCode());
    }

    /** A ROUTER line for a peer not connected yet waits for it; --0x reads the hex frame back as bytes. */
    @Test
    void catRouterLineWaitsForALibzmqDealerToConnect() throws Exception {
        CatProcess router = cat("-t", "ROUTER", "-b", "tcp://127.0.0.1:0", "--0x");
        String ep = router.bound();
        router.input("dealer-late\thello\t0x00ff\n").endInput();
        SocketEnd.Libzmq late = libzmq(SocketType.DEALER, "dealer-late");
        late.connect(ep);
        assertMessage(List.of(ByteMessages.b("hello"), new byte[] {0, (byte) 0xff}), late.recv(), "the line waited for it");
        assertEquals(0, router.exitCode(), "the input is sent: the run ends");
    }

    /** In text mode what is typed is sent, byte for byte, and what is received prints as UTF-8. */
    @Test
    void catTextModeSendsWhatIsTypedAndPrintsUtf8() throws Exception {
        SocketEnd.Libzmq pair = libzmq(SocketType.PAIR, null);
        String ep = pair.bind("tcp", null);
        CatProcess cat = cat("-t", "PAIR", "-c", ep, "-n", "1").input("0x41\tcafé\n");
        assertMessage(msg("0x41", "café"), pair.recv(), "sent as typed");
        pair.send(List.of(ByteMessages.b("日本"), ByteMessages.b("a\nb"), ByteMessages.b("0x41")));
        assertEquals("日本\t0x610a62\t0x30783431", cat.line());
        assertEquals(0, cat.exitCode());
    }

    @Test
    void catSubAgainstALibzmqPublisher() throws Exception {
        SocketEnd.Libzmq xpub = libzmq(SocketType.XPUB, null);
        String ep = xpub.bind("tcp", null);
        CatProcess sub = cat("-t", "SUB", "-c", ep, "--subscribe", "news", "-n", "2");
        assertMessage(subscription(true, "news"), xpub.recv(), "libzmq saw the cat's subscription");
        xpub.send(msg("sport 1"));
        xpub.send(msg("news 1"));
        xpub.send(msg("news 2", "more"));
        assertEquals("news 1", sub.line());
        assertEquals("news 2\tmore", sub.line());
        assertEquals(0, sub.exitCode());
    }

    @Test
    void catPushInHexToALibzmqPullThenExits() throws Exception {
        SocketEnd.Libzmq pull = libzmq(SocketType.PULL, null);
        String ep = pull.bind("tcp", null);
        CatProcess push = cat("-t", "PUSH", "-c", ep, "--hex").input("00ff\t\t6869\n").endInput();
        assertMessage(List.of(new byte[] {0, (byte) 0xff}, new byte[0], ByteMessages.b("hi")), pull.recv(), "hex frames");
        assertEquals(0, push.exitCode());
    }

    @Test
    void catTimeoutEndsTheProcessWithStatusOne() throws Exception {
        CatProcess pull = cat("-t", "PULL", "-b", "tcp://127.0.0.1:0", "--timeout", "200");
        assertEquals(1, pull.exitCode());
    }

    /** A {@code zmtp cat} process. */
    static final class CatProcess implements AutoCloseable {
        final Process process;
        final BlockingQueue<String> out = new LinkedBlockingQueue<>();
        final BlockingQueue<String> err = new LinkedBlockingQueue<>();
        final List<String> errSeen = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final OutputStream stdin;
        private final Thread errPump;

        CatProcess(String... args) throws IOException {
            List<String> cmd = PeerScript.zmtpJava("-Dio.netty.leakDetection.level=paranoid");
            cmd.add("cat");
            cmd.addAll(List.of(args));
            process = new ProcessBuilder(cmd).start();
            stdin = process.getOutputStream();
            pump(process.getInputStream(), out, null);
            errPump = pump(process.getErrorStream(), err, errSeen);
        }

        private static Thread pump(InputStream s, BlockingQueue<String> q, List<String> copy) {
            Thread t = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(s, StandardCharsets.UTF_8))) {
                    String l;
                    while ((l = r.readLine()) != null) {
                        q.add(l);
                        if (copy != null) {
                            copy.add(l);
                        }
                    }
                } catch (IOException ignored) {
                    // the process ended
                }
            }, "cat-pump");
            t.setDaemon(true);
            t.start();
            return t;
        }

        /** Waits until everything the ended process wrote on stderr is in {@link #errSeen}. */
        void awaitStderrEnd() throws InterruptedException {
            errPump.join(ByteMessages.T);
            if (errPump.isAlive()) {
                throw new AssertionError("stderr of cat still open " + ByteMessages.T + " ms after it ended: " + errSeen);
            }
        }

        CatProcess input(String text) throws IOException {
            stdin.write(text.getBytes(StandardCharsets.UTF_8));
            stdin.flush();
            return this;
        }

        CatProcess endInput() throws IOException {
            stdin.close();
            return this;
        }

        String line() throws InterruptedException {
            String l = out.poll(ByteMessages.T, TimeUnit.MILLISECONDS);
            if (l == null) {
                throw new AssertionError("no output line within " + ByteMessages.T + " ms; stderr: " + errSeen);
            }
            return l;
        }

        String bound() throws InterruptedException {
            while (true) {
                String l = err.poll(ByteMessages.T, TimeUnit.MILLISECONDS);
                if (l == null) {
                    throw new AssertionError("no 'bound' line; stderr: " + errSeen);
                }
                if (l.startsWith("bound ")) {
                    return l.substring("bound ".length());
                }
            }
        }

        int exitCode() throws InterruptedException {
            if (!process.waitFor(ByteMessages.T, TimeUnit.MILLISECONDS)) {
                throw new AssertionError("cat did not exit; stderr: " + errSeen);
            }
            awaitStderrEnd(); // a leak report may be among its last lines
            assertFalse(errSeen.stream().anyMatch(l -> l.contains("LEAK:")), "no buffer leak: " + errSeen);
            return process.exitValue();
        }

        @Override
        public void close() {
            if (process.isAlive()) {
                process.destroyForcibly();
            }
            try {
                process.waitFor(ByteMessages.T, TimeUnit.MILLISECONDS);
                awaitStderrEnd();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
