package io.zmtp.cli;

import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.DishSocket;
import io.zmtp.socket.RadioSocket;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code zmtp cat} with the thread-safe types, run in-process against our own sockets and against
 * another cat: lines led by a routing id (SERVER, PEER) or a group (RADIO, DISH), one frame each.
 */
class CatDraftTypesTest {
    static final Duration T = Duration.ofSeconds(10);
    /** How long a probe waits for the one before it to arrive before the next is sent. */
    static final Duration PROBE_WAIT = Duration.ofMillis(20);
    ZmtpContext ctx;
    final List<CatRun> runs = new ArrayList<>();

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

    BlockingSocket socket(SocketType type) {
        return ctx.blocking(type, SocketOptions.builder().linger(Duration.ZERO).build());
    }

    static String body(ZmtpMessage m) {
        assertNotNull(m, "a message arrived");
        return m.frameString(0);
    }

    /** The next stderr line starting with {@code prefix}, skipping the others. */
    static String errLine(CatRun run, String prefix) {
        String l;
        do {
            l = run.err.next();
        } while (!l.startsWith(prefix));
        return l;
    }

    @Test
    void serverEchoAnswersEachClientThroughItsRoutingId() {
        CatRun server = cat("-t", "SERVER", "-b", "tcp://127.0.0.1:0", "--echo", "-n", "2");
        String ep = server.bound();
        BlockingSocket c1 = socket(SocketType.CLIENT).connect(ep);
        BlockingSocket c2 = socket(SocketType.CLIENT).connect(ep);
        c1.send("from c1");
        assertEquals(List.of("from c1"), c1.receiveStrings(T));
        c2.send("from c2");
        assertEquals(List.of("from c2"), c2.receiveStrings(T), "each echo goes back to its own client");
        String[] first = server.line().split("\t", -1);
        String[] second = server.line().split("\t", -1);
        assertEquals("from c1", first[1]);
        assertEquals("from c2", second[1]);
        assertTrue(first[0].matches("[1-9][0-9]*") && second[0].matches("[1-9][0-9]*"),
                "each line is led by a decimal routing id: " + first[0] + ", " + second[0]);
        assertNotEquals(first[0], second[0], "two clients, two routing ids");
        assertEquals(0, server.exitCode());
    }

    @Test
    void serverSendsALineToThePeerItsRoutingIdNames() {
        CatRun server = cat("-t", "SERVER", "-b", "tcp://127.0.0.1:0");
        BlockingSocket client = socket(SocketType.CLIENT).connect(server.bound());
        client.send("hello");
        String line = server.line();
        assertTrue(line.matches("[1-9][0-9]*\thello"), line);
        String id = line.substring(0, line.indexOf('\t'));
        server.input(id + "\tanswer\n").endInput();
        assertEquals(List.of("answer"), client.receiveStrings(T));
        assertEquals(0, server.exitCode(), "the input ended and its line was sent");
    }

    @Test
    void aServerLineForNoConnectedPeerOrWithoutAnIdIsReportedAndSkipped() {
        CatRun server = cat("-t", "SERVER", "-b", "tcp://127.0.0.1:0");
        BlockingSocket client = socket(SocketType.CLIENT).connect(server.bound());
        client.send("hi");
        String line = server.line();
        String id = line.substring(0, line.indexOf('\t'));
        int n = Integer.parseUnsignedInt(id);
        String other = Integer.toUnsignedString(n == 1 ? 2 : n ^ 1); // not the one connected, not 0
        server.input("no id\n0\tzero\n" + other + "\tnobody\n" + id + "\tafter\n").endInput();
        assertEquals(List.of("after"), client.receiveStrings(T), "the lines before were skipped, this one went");
        assertTrue(errLine(server, "input line 1").startsWith("input line 1 not sent: a SERVER line is the routing id"));
        assertTrue(errLine(server, "input line 2").contains("a routing id is a number from 1 to 4294967295"));
        assertTrue(errLine(server, "not sent").startsWith("not sent: "), "the unroutable line is reported");
        assertEquals(0, server.exitCode());
    }

    @Test
    void clientSendsLinesToItsServerAndPrintsTheReplies() {
        BlockingSocket server = socket(SocketType.SERVER);
        String ep = server.bind("tcp://127.0.0.1:0");
        CatRun client = cat("-t", "CLIENT", "-c", ep, "-n", "1").input("ping\n");
        ZmtpMessage request = server.receive(T);
        int id;
        try {
            assertEquals("ping", body(request));
            id = request.routingId();
            assertNotEquals(0, id, "a SERVER's message carries its client's routing id");
        } finally {
            request.release();
        }
        server.send(ZmtpMessage.of("pong".getBytes(StandardCharsets.UTF_8)).routingId(id));
        assertEquals("pong", client.line(), "a CLIENT prints the text alone");
        assertEquals(0, client.exitCode());
    }

    @Test
    void aLineOfTwoFramesIsRefusedByASingleFrameType() {
        BlockingSocket server = socket(SocketType.SERVER);
        String ep = server.bind("tcp://127.0.0.1:0");
        CatRun client = cat("-t", "CLIENT", "-c", ep).input("a\tb\nok\n").endInput();
        ZmtpMessage m = server.receive(T);
        try {
            assertEquals("ok", body(m), "the two-frame line was not sent");
        } finally {
            m.release();
        }
        assertTrue(errLine(client, "input line").startsWith("input line 1 not sent: CLIENT sends one frame per message"));
        assertEquals(0, client.exitCode());
    }

    /**
     * Writes probe lines (each {@code lead} then "probe") to a RADIO cat until {@code dish}
     * receives one (a RADIO drops what no connected DISH joined, and the JOIN comes after the
     * connection), then takes the probes still on the way: what the dish receives next was sent
     * after them.
     */
    static void probeUntilJoined(CatRun radio, String lead, BlockingSocket dish) {
        long deadline = System.nanoTime() + T.toNanos();
        while (true) {
            assertTrue(System.nanoTime() < deadline, "no probe reached the DISH within " + T);
            radio.input(lead + "probe\n");
            ZmtpMessage m = dish.receive(PROBE_WAIT);
            if (m != null) {
                m.release();
                break;
            }
        }
        radio.input(lead + "end of probes\n");
        ZmtpMessage m;
        while (!"end of probes".equals(body(m = dish.receive(T)))) {
            m.release();
        }
        m.release();
    }

    @Test
    void radioWithGroupSendsEveryLineToThatGroup() {
        BlockingSocket dish = socket(SocketType.DISH);
        String ep = dish.bind("tcp://127.0.0.1:0");
        ((DishSocket) dish.socket()).join("weather").syncUninterruptibly();
        CatRun radio = cat("-t", "RADIO", "-c", ep, "--group", "weather");
        probeUntilJoined(radio, "", dish);
        radio.input("sunny\nwindy\n").endInput();
        for (String expected : new String[] {"sunny", "windy"}) {
            ZmtpMessage m = dish.receive(T);
            try {
                assertEquals(expected, body(m));
                assertEquals("weather", m.group());
            } finally {
                m.release();
            }
        }
        assertEquals(0, radio.exitCode(), "RADIO exits once its input is sent");
    }

    @Test
    void radioLineLedByItsGroupGoesToThatGroupOnly() {
        BlockingSocket dish = socket(SocketType.DISH);
        String ep = dish.bind("tcp://127.0.0.1:0");
        ((DishSocket) dish.socket()).join("weather").syncUninterruptibly();
        CatRun radio = cat("-t", "RADIO", "-c", ep);
        probeUntilJoined(radio, "weather\t", dish);
        radio.input("news\tnot joined\nweather\tsunny\n\tno group\nsolo\n").endInput();
        ZmtpMessage m = dish.receive(T);
        try {
            assertEquals("sunny", body(m), "the line for a group the DISH did not join was not delivered");
            assertEquals("weather", m.group());
        } finally {
            m.release();
        }
        assertTrue(errLine(radio, "input line").contains("a group is 1 to 255 bytes, not 0"));
        assertTrue(errLine(radio, "input line").contains("a RADIO line is the group"));
        assertEquals(0, radio.exitCode());
    }

    /** A DISH prints each message led by its group; what it prints reads back into a RADIO. */
    @Test
    void dishPrintsTheGroupAndTextOfTheGroupsItJoined() {
        BlockingSocket radio = socket(SocketType.RADIO);
        String ep = radio.bind("tcp://127.0.0.1:0");
        CatRun dish = cat("-t", "DISH", "-c", ep, "--join", "weather", "--join", "traffic", "--join", "weather",
                "-n", "2");
        RadioSocket r = (RadioSocket) radio.socket();
        CatCommandTest.eventually("two groups joined", () -> r.eventLoop().submit(r::groupCount).get() == 2);
        radio.send(ZmtpMessage.of("x".getBytes(StandardCharsets.UTF_8)).group("news"));
        radio.send(ZmtpMessage.of("jam".getBytes(StandardCharsets.UTF_8)).group("traffic"));
        radio.send(ZmtpMessage.of(new byte[] {0, 1}).group("weather"));
        assertEquals("traffic\tjam", dish.line(), "news was not joined");
        assertEquals("weather\t0x0001", dish.line(), "binary text is printed as hex, as any frame");
        assertEquals(0, dish.exitCode(), "a group given twice is joined once");
    }

    @Test
    void scatterLinesReachAGatherCat() {
        CatRun gather = cat("-t", "GATHER", "-b", "tcp://127.0.0.1:0", "-n", "2");
        CatRun scatter = cat("-t", "SCATTER", "-c", gather.bound()).input("one\ntwo\n").endInput();
        assertEquals("one", gather.line());
        assertEquals("two", gather.line());
        assertEquals(0, scatter.exitCode(), "SCATTER exits once its input is sent");
        assertEquals(0, gather.exitCode());
    }

    @Test
    void channelCatsTalkBothWays() {
        BlockingSocket channel = socket(SocketType.CHANNEL);
        String ep = channel.bind("tcp://127.0.0.1:0");
        CatRun cat = cat("-t", "CHANNEL", "-c", ep, "-n", "1").input("to you\n");
        assertEquals(List.of("to you"), channel.receiveStrings(T));
        channel.send("to me");
        assertEquals("to me", cat.line());
        assertEquals(0, cat.exitCode());
    }

    /** A PEER's -c reports the routing id it gave the endpoint, once connected; lines led by it go there. */
    @Test
    void peerConnectReportsTheRoutingIdItsLinesUse() {
        BlockingSocket peer = socket(SocketType.PEER);
        String ep = peer.bind("tcp://127.0.0.1:0");
        CatRun cat = cat("-t", "PEER", "-c", ep);
        String report = errLine(cat, "peer "); // once the handshake is done: the id is routable
        assertTrue(report.matches("peer [1-9][0-9]* " + java.util.regex.Pattern.quote(ep)), report);
        String id = report.split(" ")[1];
        cat.input(id + "\thello peer\n");
        ZmtpMessage m = peer.receive(T);
        int back;
        try {
            assertEquals("hello peer", body(m));
            back = m.routingId();
        } finally {
            m.release();
        }
        peer.send(ZmtpMessage.of("hello cat".getBytes(StandardCharsets.UTF_8)).routingId(back));
        assertEquals(id + "\thello cat", cat.line(), "the reply is printed with the id the connect reported");
        cat.endInput();
        assertEquals(0, cat.exitCode());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "-t SUB -c tcp://127.0.0.1:5555 --join x",
        "-t DISH -c tcp://127.0.0.1:5555 --group x",
        "-t RADIO -c tcp://127.0.0.1:5555 -n 1",
        "-t SCATTER -c tcp://127.0.0.1:5555 --timeout 10",
        "-t DISH -c tcp://127.0.0.1:5555 --join x --echo",
        "-t GATHER -c tcp://127.0.0.1:5555 --echo",
    })
    void usageErrorsExitWithStatusTwo(String args) {
        CatRun run = cat(args.split(" "));
        assertEquals(2, run.exitCode(), String.join("\n", run.err.drain()));
    }

    @Test
    void aGroupLongerThan255BytesIsAUsageError() {
        CatRun run = cat("-t", "RADIO", "-c", "tcp://127.0.0.1:5555", "--group", "g".repeat(256));
        assertEquals(2, run.exitCode());
        CatRun dish = cat("-t", "DISH", "-c", "tcp://127.0.0.1:5555", "--join", "é".repeat(128));
        assertEquals(2, dish.exitCode(), "256 bytes of UTF-8");
    }
}
