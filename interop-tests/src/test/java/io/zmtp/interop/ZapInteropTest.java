package io.zmtp.interop;

import io.zmtp.security.CurveKeyPair;
import io.zmtp.security.CurveMechanism;
import io.zmtp.security.PlainMechanism;
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.MessageHandler;
import io.zmtp.socket.SocketEvent;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZapAuthenticator;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.ConnectionFailed;
import io.zmtp.wire.Mechanism;
import io.zmtp.wire.NullMechanism;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static io.zmtp.interop.ByteMessages.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * One ZAP handler, written from 27/ZAP in Python (libzmq_peer.py's), judges the clients of a
 * libzmq 4.3.4 server and of ours: the same outcome for allowed (200), temporarily failed (300),
 * denied (400) and broken (500) with PLAIN, CURVE and NULL with a domain, and the same request
 * frames. libzmq's server asks it on its own inproc://zeromq.zap.01; ours asks our context's
 * handler endpoint, where a two-socket relay hands each request, unchanged, to the same handler
 * on tcp. The client is ours in both cases, so that what each server put on the wire (ERROR and
 * its code, or a close without one) is read the same way.
 */
class ZapInteropTest {
    static final HexFormat HEX = HexFormat.of();
    static final String DOMAIN = "global";
    static LibzmqPeer zmq;
    static ZmtpContext ctx;
    static CurveKeyPair serverKeys;
    static final Map<String, CurveKeyPair> clientKeys = new ConcurrentHashMap<>();
    static int next;

    @BeforeAll
    static void start() {
        zmq = LibzmqPeer.start();
        zmq.zapStart();
        for (String code : List.of("200", "300", "400", "500")) {
            zmq.call("zap answer user" + code + " " + code);
            zmq.call("zap answer domain" + code + " " + code);
            CurveKeyPair k = CurveKeyPair.generate();
            clientKeys.put(code, k);
            zmq.call("zap answer " + k.publicKeyZ85() + " " + code);
        }
        String relay = zmq.call("zap relay");
        ctx = ZmtpContext.create(2);
        // our context's handler endpoint, relayed unchanged to the Python handler: the ROUTER's
        // routing id and the empty delimiter travel as the REP's envelope and come back with the reply
        ZmtpSocket front = ctx.socket(SocketType.ROUTER);
        ZmtpSocket back = ctx.socket(SocketType.DEALER, SocketOptions.builder().build(), front.eventLoop());
        front.onMessage(back::send);
        back.onMessage(front::send);
        front.bind(ZapAuthenticator.ENDPOINT).syncUninterruptibly();
        back.connect(relay).syncUninterruptibly();
        String[] pair = zmq.curveKeypair();
        serverKeys = CurveKeyPair.fromSecretKey(pair[1]);
    }

    @AfterAll
    static void stop() {
        ctx.close();
        zmq.close();
    }

    /** What a server did with one client, as that client saw it and as the server's socket reported. */
    record Outcome(String client, String server) {
    }

    @ParameterizedTest(name = "{0} answered {1}")
    @CsvSource({"PLAIN,200", "PLAIN,300", "PLAIN,400", "PLAIN,500", "CURVE,200", "CURVE,300", "CURVE,400",
            "CURVE,500", "NULL,200", "NULL,300", "NULL,400", "NULL,500"})
    void sameOutcomeAndSameRequestAsLibzmq(String mechanism, String code) throws Exception {
        int before = requests().size();
        Outcome theirs = againstLibzmq(mechanism, code);
        Outcome ours = againstOurs(mechanism, code);
        String expected = switch (code) {
            case "200" -> "200 user=" + key(mechanism, code) + " Hello=World";
            case "300" -> "closed without ERROR";
            default -> "ERROR " + code;
        };
        assertEquals(expected, theirs.client(), "libzmq's server, as our client saw it");
        assertEquals(theirs, ours, "our server does what libzmq's does with the same handler");

        List<String[]> reqs = requests().subList(before, requests().size());
        List<String> libzmqRequest = first(reqs, "inproc");
        List<String> ourRequest = first(reqs, "relay");
        assertEquals("1", libzmqRequest.get(1), "libzmq numbers every request 1");
        assertNotEquals(null, ourRequest.get(1));
        List<String> a = new ArrayList<>(libzmqRequest);
        List<String> b = new ArrayList<>(ourRequest);
        a.remove(1);
        b.remove(1);
        assertEquals(a, b, "the same ZAP request frames but the request id");
        assertEquals(mechanism, a.get(4));
    }

    static String key(String mechanism, String code) {
        return switch (mechanism) {
            case "PLAIN" -> "user" + code;
            case "CURVE" -> clientKeys.get(code).publicKeyZ85();
            default -> "domain" + code;
        };
    }

    static String domain(String mechanism, String code) {
        return mechanism.equals("NULL") ? "domain" + code : DOMAIN;
    }

    Outcome againstLibzmq(String mechanism, String code) throws Exception {
        String id = "s" + (next++);
        zmq.socket(id, "ROUTER");
        zmq.call("opt " + id + " ZAP_DOMAIN str:" + domain(mechanism, code));
        zmq.call("opt " + id + " ROUTING_ID str:srv");
        // libzmq 4.3.4 answers a PLAIN or CURVE 300 with nothing at all: the connection stays
        // until its handshake interval (30 s by default) ends it, without ERROR. A short interval
        // makes that close come soon; ours closes as soon as the handler answers.
        zmq.call("opt " + id + " HANDSHAKE_IVL 1000");
        if (mechanism.equals("PLAIN")) {
            zmq.call("opt " + id + " PLAIN_SERVER 1");
        } else if (mechanism.equals("CURVE")) {
            zmq.call("opt " + id + " CURVE_SERVER 1");
            zmq.call("opt " + id + " CURVE_SECRETKEY z85:" + serverKeys.secretKeyZ85());
        }
        zmq.monitor(id);
        String endpoint = zmq.call("bind " + id + " tcp://127.0.0.1:*");
        try {
            String client = runClient(mechanism, code, endpoint, () -> {
                try {
                    String[] got = zmq.call("recvprops " + id + " 5000", 10_000).split(" ");
                    return "200 user=" + text(got[0]) + " Hello=" + text(got[1]);
                } catch (LibzmqPeer.LibzmqError e) {
                    return "nothing received";
                }
            });
            String server;
            if (code.equals("200")) {
                server = "handshake succeeded";
            } else {
                eventually("libzmq's server reports the refusal", () -> failedAuth(id) != null);
                server = "refused " + failedAuth(id);
            }
            return new Outcome(client, server);
        } finally {
            zmq.close(id);
        }
    }

    static String failedAuth(String id) {
        String values = zmq.call("eventvalues " + id);
        for (String v : values.split(" ")) {
            if (v.startsWith("HANDSHAKE_FAILED_AUTH:")) {
                return v.substring(v.indexOf(':') + 1);
            }
        }
        return null;
    }

    static String text(String hex) {
        return hex.equals("-") ? "(none)" : new String(HEX.parseHex(hex), StandardCharsets.UTF_8);
    }

    Outcome againstOurs(String mechanism, String code) throws Exception {
        Mechanism m = switch (mechanism) {
            case "PLAIN" -> PlainMechanism.server(ctx.zapAuthenticator());
            case "CURVE" -> CurveMechanism.server(serverKeys, ctx.zapAuthenticator());
            default -> NullMechanism.INSTANCE;     // a ZAP domain turns the handler on by itself
        };
        BlockingSocket server = ctx.blocking(SocketType.ROUTER, SocketOptions.builder().mechanism(m)
                .zapDomain(domain(mechanism, code)).identity("srv").build());
        List<SocketEvent> events = new CopyOnWriteArrayList<>();
        server.socket().monitor(events::add);
        try {
            String endpoint = server.bind("tcp://127.0.0.1:0");
            String client = runClient(mechanism, code, endpoint, () -> {
                ZmtpMessage msg = server.receive(Duration.ofSeconds(5));
                if (msg == null) {
                    return "nothing received";
                }
                try {
                    String user = msg.properties().userId();
                    String hello = msg.properties().getString("Hello");
                    return "200 user=" + (user == null ? "(none)" : user) + " Hello=" + (hello == null ? "(none)" : hello);
                } finally {
                    msg.release();
                }
            });
            String serverSaw;
            if (code.equals("200")) {
                serverSaw = "handshake succeeded";
            } else {
                eventually("our server reports the refusal", () -> refusal(events) != null);
                serverSaw = "refused " + refusal(events);
            }
            return new Outcome(client, serverSaw);
        } finally {
            server.close();
        }
    }

    /** The ZAP status code of our server's first refusal ("... refused (400): ..."), or null. */
    static String refusal(List<SocketEvent> events) {
        for (SocketEvent e : events) {
            if (e.type() == SocketEvent.Type.HANDSHAKE_FAILED && e.failure() == ConnectionFailed.Kind.AUTHENTICATION) {
                int at = e.reason().indexOf("refused (");
                return at < 0 ? e.reason() : e.reason().substring(at + 9, at + 12);
            }
        }
        return null;
    }

    /**
     * Our client with the credentials that make the handler answer {@code code}: sends one
     * message and reports the message's arrival, the ERROR it got, or a close without ERROR.
     */
    static String runClient(String mechanism, String code, String endpoint,
                            java.util.concurrent.Callable<String> receive) throws Exception {
        Mechanism m = switch (mechanism) {
            case "PLAIN" -> PlainMechanism.client("user" + code, "any");
            case "CURVE" -> CurveMechanism.client(serverKeys.publicKey(), clientKeys.get(code));
            default -> NullMechanism.INSTANCE;
        };
        ZmtpSocket client = ctx.socket(SocketType.DEALER, SocketOptions.builder().mechanism(m).build());
        List<SocketEvent> events = new CopyOnWriteArrayList<>();
        client.monitor(events::add);
        try {
            client.connect(endpoint).syncUninterruptibly();
            if (code.equals("200")) {
                client.send("hello");
                return receive.call();
            }
            eventually(() -> "the client's handshake ends: " + events, () -> events.stream()
                    .anyMatch(e -> e.type() == SocketEvent.Type.HANDSHAKE_FAILED));
            for (SocketEvent e : events) {
                if (e.type() == SocketEvent.Type.HANDSHAKE_FAILED && e.failure() == ConnectionFailed.Kind.PEER_ERROR) {
                    int at = e.reason().indexOf("ERROR \"");
                    return "ERROR " + e.reason().substring(at + 7, at + 10);
                }
            }
            return "closed without ERROR";
        } finally {
            client.close(Duration.ZERO).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }

    static List<String[]> requests() {
        String all = zmq.call("zap requests");
        List<String[]> out = new ArrayList<>();
        if (!all.isEmpty()) {
            for (String r : all.split(" ")) {
                int colon = r.indexOf(':');
                out.add(new String[] {r.substring(0, colon), r.substring(colon + 1)});
            }
        }
        return out;
    }

    static List<String> first(List<String[]> requests, String tag) {
        for (String[] r : requests) {
            if (r[0].equals(tag)) {
                List<String> frames = new ArrayList<>();
                for (String hex : r[1].split(",", -1)) {
                    frames.add(hex.equals("-") ? "" : new String(HEX.parseHex(hex), StandardCharsets.ISO_8859_1));
                }
                return frames;
            }
        }
        throw new AssertionError("no ZAP request came through " + tag);
    }
}
