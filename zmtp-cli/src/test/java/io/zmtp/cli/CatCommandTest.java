package io.zmtp.cli;

import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.PubSocket;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.testing.PeerBytes;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code zmtp cat} run in-process against our own sockets and against another cat. */
class CatCommandTest {
    static final Duration T = Duration.ofSeconds(10);
    ZmtpContext ctx;
    final List<CatRun> runs = new ArrayList<>();
    @TempDir
    Path tmp;

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(1);
    }

    @AfterEach
    void stop() {
        runs.forEach(CatRun::close);
        ctx.close(Duration.ofSeconds(5));
    }

    CatRun cat(String... args) {
        CatRun r = CatRun.start(args);
        runs.add(r);
        return r;
    }

    BlockingSocket socket(SocketType type, String identity) {
        SocketOptions.Builder b = SocketOptions.builder().linger(Duration.ZERO);
        if (identity != null) {
            b.identity(identity);
        }
        return ctx.blocking(type, b.build());
    }

    static List<String> strings(ZmtpMessage m) {
        assertTrue(m != null, "a message arrived");
        try {
            List<String> l = new ArrayList<>();
            for (int i = 0; i < m.size(); i++) {
                l.add(m.frameString(i));
            }
            return l;
        } finally {
            m.release();
        }
    }

    @Test
    void boundPortZeroIsReportedOnStderr() {
        CatRun pull = cat("-t", "PULL", "-b", "tcp://127.0.0.1:0", "-n", "1");
        String ep = pull.bound();
        assertTrue(ep.startsWith("tcp://127.0.0.1:"), ep);
        assertNotEquals("tcp://127.0.0.1:0", ep, "the port chosen is reported");
        BlockingSocket push = socket(SocketType.PUSH, null).connect(ep);
        push.send("through the reported port");
        assertEquals("through the reported port", pull.line());
        assertEquals(0, pull.exitCode());
    }

    @Test
    void reqAndRepCatsMakeARoundTrip() {
        CatRun rep = cat("-t", "REP", "-b", "tcp://127.0.0.1:0", "--echo", "-n", "2");
        String ep = rep.bound();
        CatRun req = cat("-t", "REQ", "-c", ep).input("hello\tworld\nsecond\n").endInput();
        assertEquals("hello\tworld", req.line(), "REQ prints the reply");
        assertEquals("second", req.line());
        assertEquals(0, req.exitCode(), "REQ exits once its input is answered");
        assertEquals("hello\tworld", rep.line(), "REP prints the request");
        assertEquals("second", rep.line());
        assertEquals(0, rep.exitCode(), "REP exits after -n 2");
    }

    @Test
    void repAnswersEachRequestWithItsNextInputLine() {
        CatRun rep = cat("-t", "REP", "-b", "tcp://127.0.0.1:0", "-n", "2").input("pong 1\npong\t2\n");
        BlockingSocket req = socket(SocketType.REQ, null).connect(rep.bound());
        req.send("ping 1");
        assertEquals(List.of("pong 1"), req.receiveStrings(T));
        req.send("ping 2");
        assertEquals(List.of("pong", "2"), req.receiveStrings(T));
        assertEquals(List.of("ping 1", "ping 2"), List.of(rep.line(), rep.line()));
        assertEquals(0, rep.exitCode(), "after answering the second request");
    }

    @Test
    void routerEchoAnswersEachPeerThroughItsRoutingId() {
        CatRun router = cat("-t", "ROUTER", "-b", "tcp://127.0.0.1:0", "--echo", "-n", "2");
        String ep = router.bound();
        BlockingSocket d1 = socket(SocketType.DEALER, "d1").connect(ep);
        BlockingSocket d2 = socket(SocketType.DEALER, "d2").connect(ep);
        d1.send("a", "", "b");
        assertEquals(List.of("a", "", "b"), d1.receiveStrings(T));
        d2.send("from d2");
        assertEquals(List.of("from d2"), d2.receiveStrings(T));
        assertEquals("d1\ta\t\tb", router.line(), "the routing id is the first frame printed");
        assertEquals("d2\tfrom d2", router.line());
        assertEquals(0, router.exitCode());
    }

    @Test
    void routerPrintsGeneratedIdsAsHexAndWith0xALineSendsBackThroughThem() throws Exception {
        CatRun router = cat("-t", "ROUTER", "-b", "tcp://127.0.0.1:0", "--0x");
        BlockingSocket anonymous = socket(SocketType.DEALER, null).connect(router.bound());
        anonymous.send("hi");
        String line = router.line();
        assertTrue(line.matches("0x00[0-9a-f]{8}\thi"), "a generated 5-byte id printed as hex: " + line);
        String id = line.substring(0, line.indexOf('\t'));
        router.input(id + "\tanswer\t0xff00\n").endInput();
        ZmtpMessage m = anonymous.receive(T);
        assertTrue(m != null, "the answer arrived");
        try {
            assertEquals("answer", m.frameString(0));
            assertArrayEquals(new byte[] {(byte) 0xff, 0}, m.frameBytes(1), "0x frames are sent as bytes");
        } finally {
            m.release();
        }
        assertEquals(0, router.exitCode());
    }

    @Test
    void subPrintsOnlyWhatItSubscribedTo() {
        BlockingSocket pub = socket(SocketType.PUB, null);
        String ep = pub.bind("tcp://127.0.0.1:0");
        CatRun sub = cat("-t", "SUB", "-c", ep, "--subscribe", "A", "--subscribe", "C", "-n", "3");
        PubSocket p = (PubSocket) pub.socket();
        eventually("two subscriptions", () -> p.eventLoop().submit(p::subscriptionCount).get() == 2);
        pub.send("B1");
        pub.send("A1");
        pub.send("C1", "x");
        pub.send("BA");
        pub.send("A2");
        assertEquals("A1", sub.line());
        assertEquals("C1\tx", sub.line());
        assertEquals("A2", sub.line());
        assertEquals(0, sub.exitCode());
    }

    @Test
    void xsubSubscribeSendsTheSubscriptionUpstream() {
        BlockingSocket xpub = socket(SocketType.XPUB, null);
        String ep = xpub.bind("tcp://127.0.0.1:0");
        CatRun xsub = cat("-t", "XSUB", "-c", ep, "--subscribe", "news", "-n", "1");
        ZmtpMessage sub = xpub.receive(T);
        assertTrue(sub != null, "the subscription arrived");
        try {
            assertArrayEquals("\u0001news".getBytes(), sub.frameBytes(0));
        } finally {
            sub.release();
        }
        xpub.send("news 1");
        assertEquals("news 1", xsub.line());
        assertEquals(0, xsub.exitCode());
    }

    @Test
    void countEndsTheRunAfterNMessages() {
        CatRun pull = cat("-t", "PULL", "-b", "tcp://127.0.0.1:0", "-n", "2");
        BlockingSocket push = socket(SocketType.PUSH, null).connect(pull.bound());
        push.send("1");
        push.send("2");
        push.send("3");
        assertEquals(0, pull.exitCode());
        assertEquals(List.of("1", "2"), pull.out.drain(), "exactly two messages printed");
    }

    @Test
    void timeoutWithNoMessageExitsWithStatusOne() {
        CatRun pull = cat("-t", "PULL", "-b", "tcp://127.0.0.1:0", "--timeout", "100");
        assertEquals(1, pull.exitCode());
        assertEquals(List.of(), pull.out.drain());
        assertTrue(pull.err.drain().stream().anyMatch(l -> l.startsWith("timeout")), "says why on stderr");
    }

    @Test
    void timeoutRestartsAtEachMessage() throws InterruptedException {
        // Eight messages, each sent 200 ms after the previous one was printed: the run lasts more
        // than 7 x 200 = 1400 ms, longer than its 1200 ms timeout, so it reaches -n only if the
        // clock restarts at each message. Each silence (the first one includes connecting and the
        // handshake) is about a second shorter than the timeout: a slow machine cannot end it.
        CatRun pull = cat("-t", "PULL", "-b", "tcp://127.0.0.1:0", "--timeout", "1200", "-n", "8");
        BlockingSocket push = socket(SocketType.PUSH, null).connect(pull.bound());
        for (int i = 0; i < 8; i++) {
            if (i > 0) {
                Thread.sleep(200); // the silence under test, not a wait for something to happen
            }
            push.send("m" + i);
            assertEquals("m" + i, pull.line());
        }
        assertEquals(0, pull.exitCode(), "-n reached, though the run outlasted one timeout");
    }

    @Test
    void hexReadsAndWritesEveryFrameAsHex() {
        BlockingSocket router = socket(SocketType.ROUTER, null);
        String ep = router.bind("tcp://127.0.0.1:0");
        CatRun dealer = cat("-t", "DEALER", "-c", ep, "--hex", "--identity-hex", "6431", "-n", "1")
                .input("00ff\t\t6869\n");
        ZmtpMessage m = router.receive(T);
        assertTrue(m != null);
        try {
            assertEquals(4, m.size());
            assertEquals("d1", m.frameString(0), "--identity-hex is hex");
            assertArrayEquals(new byte[] {0, (byte) 0xff}, m.frameBytes(1));
            assertEquals(0, m.frame(2).readableBytes());
            assertEquals("hi", m.frameString(3));
        } finally {
            m.release();
        }
        router.send(ZmtpMessage.of("d1".getBytes(), new byte[] {1, 2}, new byte[0], "ok".getBytes()));
        assertEquals("0102\t\t6f6b", dealer.line());
        assertEquals(0, dealer.exitCode());
    }

    @Test
    void delimiterSeparatesFrames() {
        BlockingSocket pair = socket(SocketType.PAIR, null);
        String ep = pair.bind("tcp://127.0.0.1:0");
        CatRun cat = cat("-t", "PAIR", "-c", ep, "-d", "|", "-n", "1").input("a|b||c\n");
        assertEquals(List.of("a", "b", "", "c"), pair.receiveStrings(T));
        pair.send("x", "tab\there", "a|b", "");
        assertEquals("x|tab\there|0x617c62|", cat.line(), "under -d '|' a tab is text and a '|' is hex");
        assertEquals(0, cat.exitCode());
    }

    /** What is typed is sent: nothing that looks like hex or an escape is reinterpreted. */
    @Test
    void textModeSendsEveryLineAsTyped() {
        BlockingSocket pair = socket(SocketType.PAIR, null);
        String ep = pair.bind("tcp://127.0.0.1:0");
        CatRun cat = cat("-t", "PAIR", "-c", ep).input("0x41\t0xff00\t\\x41\r\n");
        assertEquals(List.of("0x41", "0xff00", "\\x41"), pair.receiveStrings(T), "the \\r of \\r\\n ends the line");
        byte[] binary = {(byte) 0xff, 0, (byte) 0xc3, '\r', 'x', '\t', (byte) 0x80, '\n'};
        cat.input(binary).endInput();
        ZmtpMessage m = pair.receive(T);
        assertTrue(m != null, "the binary line arrived");
        try {
            assertEquals(2, m.size());
            assertArrayEquals(new byte[] {(byte) 0xff, 0, (byte) 0xc3, '\r', 'x'}, m.frameBytes(0), "bytes as read");
            assertArrayEquals(new byte[] {(byte) 0x80}, m.frameBytes(1));
        } finally {
            m.release();
        }
        assertEquals(0, cat.exitCode());
        assertTrue(cat.err.drain().stream().anyMatch(l -> l.startsWith("note: input frames are sent as typed")),
                "a typed 0x frame gets a hint about --0x");
    }

    /** A received line printed with --0x, pasted back, sends exactly the frames received. */
    @Test
    void aPrintedLineSentBackWith0xIsTheMessageReceived() {
        BlockingSocket pair = socket(SocketType.PAIR, null);
        String ep = pair.bind("tcp://127.0.0.1:0");
        CatRun cat = cat("-t", "PAIR", "-c", ep, "--0x");
        byte[][] frames = {"0x41".getBytes(), {0, 1, (byte) 0xff}, "tab\tnew\nline".getBytes(), {}, "é".getBytes()};
        pair.send(ZmtpMessage.of(frames));
        String line = cat.line();
        assertEquals("0x30783431\t0x0001ff\t0x746162096e65770a6c696e65\t\té", line);
        cat.input(line + "\n").endInput();
        ZmtpMessage back = pair.receive(T);
        assertTrue(back != null, "the line came back");
        try {
            assertEquals(frames.length, back.size());
            for (int i = 0; i < frames.length; i++) {
                assertArrayEquals(frames[i], back.frameBytes(i), "frame " + i);
            }
        } finally {
            back.release();
        }
        assertEquals(0, cat.exitCode());
    }

    @Test
    void identityIsTextWhateverTheModeAndIdentityHexIsHex() {
        BlockingSocket router = socket(SocketType.ROUTER, null);
        String ep = router.bind("tcp://127.0.0.1:0");
        List<String[]> runs = List.of(
                new String[] {"--hex", "--identity", "6431"},
                new String[] {"--0x", "--identity", "0x41"},
                new String[] {"--identity", "0x41"},
                new String[] {"--identity-hex", "C3A9"});
        List<String> expected = List.of("6431", "0x41", "0x41", "é");
        for (int i = 0; i < runs.size(); i++) {
            List<String> args = new ArrayList<>(List.of("-t", "DEALER", "-c", ep));
            args.addAll(List.of(runs.get(i)));
            CatRun dealer = cat(args.toArray(new String[0]));
            dealer.input(runs.get(i)[0].equals("--hex") ? "6869\n" : "hi\n").endInput();
            assertEquals(List.of(expected.get(i), "hi"), strings(router.receive(T)), String.join(" ", runs.get(i)));
            assertEquals(0, dealer.exitCode());
        }
    }

    /** A ROUTER line for a peer that has not connected yet waits for it, as other sends wait for a peer. */
    @Test
    void routerLineWaitsForItsPeerToConnect() {
        CatRun router = cat("-t", "ROUTER", "-b", "tcp://127.0.0.1:0");
        String ep = router.bound();
        router.input("late\tfirst\nlate\tsecond\t\n").endInput();
        BlockingSocket other = socket(SocketType.DEALER, "other").connect(ep);
        other.send("here early");
        assertEquals("other\there early", router.line(), "the router runs while the lines wait");
        assertFalse(router.exited(), "the lines wait for their peer");
        BlockingSocket late = socket(SocketType.DEALER, "late").connect(ep);
        assertEquals(List.of("first"), late.receiveStrings(T));
        assertEquals(List.of("second", ""), late.receiveStrings(T));
        assertEquals(0, router.exitCode(), "the input ended and every line was sent");
        assertTrue(router.err.drain().stream().noneMatch(l -> l.startsWith("not sent")));
    }

    /** With --send-timeout a line whose peer does not come is reported and the lines after it go on. */
    @Test
    void routerWaitForAPeerEndsAtTheSendTimeout() {
        CatRun router = cat("-t", "ROUTER", "-b", "tcp://127.0.0.1:0", "--send-timeout", "300");
        String ep = router.bound();
        BlockingSocket there = socket(SocketType.DEALER, "there").connect(ep);
        there.send("hi");
        assertEquals("there\thi", router.line());
        router.input("nobody\tlost\nthere\tafter\n").endInput();
        assertEquals(List.of("after"), there.receiveStrings(T), "the next line went once the first gave up");
        String report;
        do {
            report = router.err.next();
        } while (!report.startsWith("not sent"));
        assertEquals("not sent: no peer with routing id nobody connected within 300 ms", report);
        assertEquals(0, router.exitCode());
    }

    @Test
    void aRouterLineWithoutFramesAfterTheIdIsRefused() {
        CatRun router = cat("-t", "ROUTER", "-b", "tcp://127.0.0.1:0");
        router.bound();
        router.input("only-an-id\n").endInput();
        String report;
        do {
            report = router.err.next();
        } while (!report.startsWith("input line"));
        assertTrue(report.startsWith("input line 1 not sent: a ROUTER line is the routing id"), report);
        assertEquals(0, router.exitCode());
    }

    /** Input read before any peer exists waits for one, and the run ends once it is all sent. */
    @Test
    void pushSendsItsInputWhenAPeerComesAndThenExits() {
        String ep = "ipc://" + tmp.resolve("late.ipc");
        CatRun push = cat("-t", "PUSH", "-c", ep).input("one\ntwo\t2\n").endInput();
        assertFalse(push.exited(), "nothing took the lines yet");
        BlockingSocket pull = socket(SocketType.PULL, null);
        pull.bind(ep);
        assertEquals(List.of("one"), pull.receiveStrings(T));
        assertEquals(List.of("two", "2"), pull.receiveStrings(T));
        assertEquals(0, push.exitCode());
    }

    @Test
    void verbosePrintsTheSocketsEvents() {
        BlockingSocket router = socket(SocketType.ROUTER, null);
        String ep = router.bind("tcp://127.0.0.1:0");
        CatRun dealer = cat("-t", "DEALER", "-c", ep, "--verbose");
        String line;
        do {
            line = dealer.err.next();
        } while (!line.startsWith("HANDSHAKE_SUCCEEDED"));
        assertTrue(line.contains(ep), line);
        dealer.endInput();
        assertEquals(0, dealer.exitCode(), "no -n, --timeout or --echo: the end of input ends the run");
    }

    /** --heartbeat reaches the socket: a peer that never answers our PINGs is dropped. */
    @Test
    void heartbeatDropsAPeerThatNeverAnswers() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CatRun dealer = cat("-t", "DEALER", "-c", "tcp://127.0.0.1:" + server.getLocalPort(), "--heartbeat", "50",
                    "--verbose");
            try (Socket mute = server.accept()) {
                mute.getOutputStream().write(PeerBytes.create().greeting31().ready("Socket-Type", "ROUTER").toArray());
                mute.getOutputStream().flush();
                String line;
                do {
                    line = dealer.err.next();
                } while (!line.startsWith("DISCONNECTED"));
                assertTrue(line.contains("PING"), "dropped for not answering: " + line);
            }
            dealer.endInput();
            assertEquals(0, dealer.exitCode());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "-t SUB -c tcp://127.0.0.1:5555 --echo",
        "-t REQ -c tcp://127.0.0.1:5555 --echo",
        "-t PUB -b tcp://127.0.0.1:0 -n 1",
        "-t PUSH -c tcp://127.0.0.1:5555 --timeout 10",
        "-t DEALER -c tcp://127.0.0.1:5555 --subscribe x",
        "-t DEALER",
        "-c tcp://127.0.0.1:5555",
        "-t NOPE -c tcp://127.0.0.1:5555",
        "-t DEALER -c tcp://127.0.0.1:5555 --hex -d a",
        "-t DEALER -c tcp://127.0.0.1:5555 -d x",
        "-t DEALER -c tcp://127.0.0.1:5555 --hex --0x",
        "-t DEALER -c tcp://127.0.0.1:5555 --identity a --identity-hex 61",
        "-t DEALER -c tcp://127.0.0.1:5555 --identity-hex 6",
        "-t DEALER -c tcp://127.0.0.1:5555 --identity-hex 00",
        "-t DEALER -c tcp://127.0.0.1:5555 --send-timeout -1",
        "-t SUB -c tcp://127.0.0.1:5555 --hex --subscribe zz",
        "-t SUB -c tcp://127.0.0.1:5555 --0x --subscribe 0xz",
        "-t DEALER -c tcp://127.0.0.1:5555 -n -1",
        "-t DEALER -c nope://x",
        "-t DEALER -c tcp://127.0.0.1:5555 --reconnect-stop NEVER",
        "-t DEALER -c tcp://127.0.0.1:5555 --tcp-retransmit-timeout 3000000000",
    })
    void usageErrorsExitWithStatusTwo(String args) {
        CatRun run = cat(args.split(" "));
        assertEquals(2, run.exitCode(), String.join("\n", run.err.drain()));
    }

    @Test
    void reconnectStopAndRetransmitTimeoutReachTheSocketsOptions() {
        picocli.CommandLine cl = ZmtpCli.commandLine();
        cl.parseArgs("cat", "-t", "DEALER", "-c", "tcp://127.0.0.1:5555", "--tcp-retransmit-timeout", "1500ms",
                "--reconnect-stop", "CONNECTION_REFUSED,HANDSHAKE_FAILED");
        SocketOptions o = ((CatCommand) cl.getSubcommands().get("cat").getCommand()).socketOptions();
        assertEquals(Duration.ofMillis(1500), o.tcpRetransmitTimeout());
        assertEquals(java.util.Set.of(io.zmtp.socket.ReconnectStop.CONNECTION_REFUSED,
                io.zmtp.socket.ReconnectStop.HANDSHAKE_FAILED), o.reconnectStop());

        cl = ZmtpCli.commandLine();
        cl.parseArgs("cat", "-t", "DEALER", "-c", "tcp://127.0.0.1:5555");
        SocketOptions defaults = ((CatCommand) cl.getSubcommands().get("cat").getCommand()).socketOptions();
        assertEquals(Duration.ZERO, defaults.tcpRetransmitTimeout(), "the system's");
        assertEquals(java.util.Set.of(), defaults.reconnectStop());
    }

    @Test
    void aConnectRefusedEndsTheRunWithReconnectStop() throws Exception {
        int closed = io.zmtp.testing.FreePorts.next(); // nothing listens there
        CatRun run = cat("-t", "DEALER", "-c", "tcp://127.0.0.1:" + closed, "--reconnect-stop", "CONNECTION_REFUSED");
        assertEquals(3, run.exitCode(), "no endpoint left to reconnect to");
        List<String> err = run.err.drain();
        assertTrue(err.stream().anyMatch(l -> l.startsWith("stopped reconnecting to tcp://127.0.0.1:" + closed)),
                String.join("\n", err));
    }

    @Test
    void aBindThatFailsExitsWithStatusThree() throws Exception {
        BlockingSocket holder = socket(SocketType.PULL, null);
        String ep = holder.bind("tcp://127.0.0.1:0");
        CatRun run = cat("-t", "PULL", "-b", ep);
        assertEquals(3, run.exitCode());
        assertTrue(run.err.drain().stream().anyMatch(l -> l.startsWith("cannot bind " + ep)));
    }

    interface Check {
        boolean ok() throws Exception;
    }

    static void eventually(String what, Check c) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        try {
            while (!c.ok()) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("timed out waiting for " + what);
                }
                Thread.sleep(5);
            }
        } catch (AssertionError e) {
            throw e;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void routerNotifyPrintsPeersComingAndGoing() {
        CatRun router = cat("-t", "ROUTER", "-b", "tcp://127.0.0.1:0", "--router-notify", "-n", "3");
        BlockingSocket dealer = socket(SocketType.DEALER, "d1").connect(router.bound());
        assertEquals("d1\t", router.line(), "connected: the routing id and an empty frame");
        dealer.send("hello");
        assertEquals("d1\thello", router.line());
        dealer.close(java.time.Duration.ZERO);
        assertEquals("d1\t", router.line(), "disconnected");
        assertEquals(0, router.exitCode());
    }

    @Test
    void xpubWelcomeGreetsEachSubscriber() {
        CatRun xpub = cat("-t", "XPUB", "-b", "tcp://127.0.0.1:0", "--xpub-welcome", "hello subscriber", "-q");
        BlockingSocket sub = socket(SocketType.SUB, null);
        sub.subscribe("hello");
        sub.connect(xpub.bound());
        assertEquals(List.of("hello subscriber"), sub.receiveStrings(T));
    }
}
