package io.zmtp.interop;

import io.zmtp.socket.SocketOptions;
import io.zmtp.testing.PeerBytes;
import io.zmtp.wire.HeartbeatPolicy;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpVersion;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static io.zmtp.interop.ByteMessages.assertMessage;
import static io.zmtp.interop.ByteMessages.msg;
import static io.zmtp.interop.ByteMessages.subscription;
import static io.zmtp.wire.SocketType.PUB;
import static io.zmtp.wire.SocketType.SUB;
import static io.zmtp.wire.SocketType.XPUB;
import static io.zmtp.wire.SocketType.XSUB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Publish-subscribe between our sockets and libzmq's: every publisher/subscriber pair (PUB-SUB,
 * XPUB-XSUB, XPUB-SUB, PUB-XSUB) with our socket on either side and either side binding, over tcp
 * (PUB-SUB over ipc too); subscriptions counted as libzmq counts them, shown by XPUB; and
 * subscriptions in the message form of ZMTP 3.0, both from libzmq (talking to our socket that
 * announces 3.0) and from a hand-written 3.0 peer.
 *
 * <p>A test knows a subscription has reached the publisher before it publishes: an XPUB shows it,
 * our PUB counts it, and a libzmq PUB is probed (messages whose first frame contains '~' are
 * probes, published until one arrives, and skipped by the subscriber).
 */
class PubSubInteropTest extends LibzmqTestBase {
    SocketEnd end(SocketType type, boolean ours) {
        return end(type, ours, SocketOptions.builder());
    }

    SocketEnd end(SocketType type, boolean ours, SocketOptions.Builder options) {
        SocketEnd e = ours ? SocketEnd.ours(ctx, type, null, options) : SocketEnd.libzmq(zmq, type, null);
        ends.add(e);
        return e;
    }

    static Stream<Arguments> pairs() {
        List<Arguments> l = new ArrayList<>();
        for (SocketType pub : List.of(PUB, XPUB)) {
            for (SocketType sub : List.of(SUB, XSUB)) {
                for (String ours : List.of("publisher", "subscriber")) {
                    for (String binder : List.of("publisher", "subscriber")) {
                        l.add(arguments(pub, sub, ours, binder, "tcp"));
                    }
                }
            }
        }
        for (String ours : List.of("publisher", "subscriber")) {
            for (String binder : List.of("publisher", "subscriber")) {
                l.add(arguments(PUB, SUB, ours, binder, "ipc"));
            }
        }
        return l.stream();
    }

    @ParameterizedTest(name = "{0}-{1}: ours is the {2}, the {3} binds, over {4}")
    @MethodSource("pairs")
    void publisherSendsWhatMatchesTheSubscriptions(SocketType pubType, SocketType subType, String ours,
            String binder, String transport) {
        SocketEnd pub = end(pubType, ours.equals("publisher"));
        SocketEnd sub = end(subType, ours.equals("subscriber"));
        if (binder.equals("publisher")) {
            sub.connect(pub.bind(transport, tmp));
        } else {
            pub.connect(sub.bind(transport, tmp));
        }
        sub.subscribe("A");
        sub.subscribe("C");
        awaitSubscribed(pub, sub, List.of("A", "C"));

        pub.send(msg("A1"));
        pub.send(msg("B1"));
        pub.send(msg("A2", "", "third"));
        pub.send(msg("C1", ""));
        pub.send(msg("A"));
        pub.send(msg(""));
        pub.send(msg("BA"));
        pub.send(msg("C-end"));
        for (List<byte[]> expected : List.of(msg("A1"), msg("A2", "", "third"), msg("C1", ""), msg("A"),
                msg("C-end"))) {
            assertMessage(expected, next(sub), sub + " from " + pub);
        }

        sub.unsubscribe("A");
        awaitCancelled(pub, sub, "A", "C", 1);
        pub.send(msg("A3"));
        pub.send(msg("C2"));
        assertMessage(msg("C2"), next(sub), "after cancelling A only C arrives");
    }

    /**
     * libzmq's SUB sends every SUBSCRIBE but only its last CANCEL; our publisher keeps one
     * subscription per peer and prefix, so the counts agree end to end. An XPUB shows the first
     * subscribe and the last cancel of a prefix (every subscribe when verbose), and a cancel for
     * each prefix of a subscriber that goes away. With our publisher announcing ZMTP 3.0, libzmq
     * sends its subscriptions as messages (0x01/0x00 and the prefix) instead of commands, and the
     * result is the same.
     */
    @ParameterizedTest(name = "our {0}, ZMTP {1}")
    @MethodSource("publishers")
    void libzmqSubscriptionsAreCountedByOurPublisher(String kind, ZmtpVersion version) {
        boolean xpub = kind.startsWith("XPUB");
        boolean verbose = kind.equals("XPUB_VERBOSE");
        SocketEnd.Ours pub = (SocketEnd.Ours) end(xpub ? XPUB : PUB, true,
                SocketOptions.builder().version(version).xpubVerbose(verbose));
        SocketEnd sub = end(SUB, false);
        sub.connect(pub.bind("tcp", tmp));

        sub.subscribe("a");
        sub.subscribe("a");
        sub.subscribe("b");
        if (xpub) {
            assertMessage(subscription(true, "a"), pub.recv(), "first subscription to a");
            if (verbose) {
                assertMessage(subscription(true, "a"), pub.recv(), "verbose: the second subscription to a");
            }
            assertMessage(subscription(true, "b"), pub.recv(), "subscription to b");
        } else {
            ByteMessages.eventually(() -> "2 prefixes, have " + pub.subscriptionCount(), () -> pub.subscriptionCount() == 2);
        }
        pub.send(msg("a1"));
        pub.send(msg("b1"));
        assertMessage(msg("a1"), sub.recv(), "a1");
        assertMessage(msg("b1"), sub.recv(), "b1");

        sub.unsubscribe("a"); // one of two: libzmq sends nothing, a still flows
        sub.unsubscribe("b");
        if (xpub) {
            assertMessage(subscription(false, "b"), pub.recv(), "cancel of b (not of a, still subscribed once)");
        } else {
            ByteMessages.eventually(() -> "1 prefix, have " + pub.subscriptionCount(), () -> pub.subscriptionCount() == 1);
        }
        pub.send(msg("b2"));
        pub.send(msg("a2"));
        assertMessage(msg("a2"), sub.recv(), "a is still subscribed once");

        sub.unsubscribe("a");
        if (xpub) {
            assertMessage(subscription(false, "a"), pub.recv(), "the last cancel of a");
        } else {
            ByteMessages.eventually(() -> "no prefix, have " + pub.subscriptionCount(), () -> pub.subscriptionCount() == 0);
        }
        sub.subscribe("z");
        if (xpub) {
            assertMessage(subscription(true, "z"), pub.recv(), "subscription to z");
        } else {
            ByteMessages.eventually(() -> "only z, have " + pub.subscriptionCount(), () -> pub.subscriptionCount() == 1);
        }
        pub.send(msg("a3"));
        pub.send(msg("z1"));
        assertMessage(msg("z1"), sub.recv(), "a is gone, z arrives");

        sub.close();
        ends.remove(sub);
        if (xpub) {
            assertMessage(subscription(false, "z"), pub.recv(), "a departed subscriber's prefixes are cancelled");
        } else {
            ByteMessages.eventually(() -> "no prefixes, have " + pub.subscriptionCount(), () -> pub.subscriptionCount() == 0);
        }
    }

    /** The mirror of the end of the test above: libzmq's XPUB cancels what our departed SUB had. */
    @org.junit.jupiter.api.Test
    void libzmqXpubCancelsTheSubscriptionsOfOurDepartedSub() {
        SocketEnd xpub = end(XPUB, false);
        SocketEnd sub = end(SUB, true);
        sub.connect(xpub.bind("tcp", tmp));
        sub.subscribe("b");
        sub.subscribe("a");
        awaitSubscribed(xpub, sub, List.of("b", "a"));
        sub.close();
        ends.remove(sub);
        List<String> cancels = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            List<byte[]> m = xpub.recv();
            cancels.add(ByteMessages.show(m));
        }
        assertEquals(List.of(ByteMessages.show(subscription(false, "a")), ByteMessages.show(subscription(false, "b"))),
                cancels.stream().sorted().toList(), "a cancel for each prefix (libzmq sends them in trie order)");
    }

    static Stream<Arguments> publishers() {
        List<Arguments> l = new ArrayList<>();
        for (String kind : List.of("PUB", "XPUB", "XPUB_VERBOSE")) {
            for (ZmtpVersion v : List.of(ZmtpVersion.V3_1, ZmtpVersion.V3_0)) {
                l.add(arguments(kind, v));
            }
        }
        return l.stream();
    }

    /**
     * Our SUB announcing ZMTP 3.0 sends its subscriptions as messages, the form libzmq expects
     * from a 3.0 peer; a libzmq XPUB shows them, a libzmq PUB filters by them.
     */
    @ParameterizedTest(name = "libzmq {0}, our SUB binds: {1}")
    @MethodSource("libzmqPublishers")
    void ourSubAnnouncingZmtp30SubscribesToLibzmq(SocketType pubType, boolean subBinds) {
        SocketEnd pub = end(pubType, false);
        SocketEnd sub = end(SUB, true, SocketOptions.builder().version(ZmtpVersion.V3_0));
        if (subBinds) {
            pub.connect(sub.bind("tcp", tmp));
        } else {
            sub.connect(pub.bind("tcp", tmp));
        }
        sub.subscribe("a");
        awaitSubscribed(pub, sub, List.of("a"));
        pub.send(msg("b1"));
        pub.send(msg("a1", "more"));
        pub.send(msg("a2"));
        assertMessage(msg("a1", "more"), next(sub), "a1");
        assertMessage(msg("a2"), next(sub), "a2");

        sub.subscribe("c");
        awaitSubscribed(pub, sub, List.of("c"));
        sub.unsubscribe("a");
        awaitCancelled(pub, sub, "a", "c", 1);
        pub.send(msg("a3"));
        pub.send(msg("c1"));
        assertMessage(msg("c1"), next(sub), "a cancelled in message form");
    }

    static Stream<Arguments> libzmqPublishers() {
        return Stream.of(arguments(PUB, false), arguments(PUB, true), arguments(XPUB, false), arguments(XPUB, true));
    }

    /**
     * A ZMTP 3.0 subscriber written byte by byte (a raw socket and {@link PeerBytes}) against
     * our publisher: its message-form subscriptions and cancels are understood, it gets exactly
     * the matching messages, and no heartbeat command is sent to it although ours are on.
     */
    @ParameterizedTest(name = "our {0}")
    @ValueSource(strings = {"PUB", "XPUB"})
    void handWrittenZmtp30SubscriberAgainstOurPublisher(SocketType pubType) throws IOException {
        SocketEnd.Ours pub = (SocketEnd.Ours) end(pubType, true, SocketOptions.builder()
                .heartbeat(HeartbeatPolicy.every(Duration.ofMillis(20))));
        String ep = pub.bind("tcp", tmp);
        try (Socket raw = new Socket("127.0.0.1", LibzmqPeer.port(ep))) {
            raw.setSoTimeout((int) ByteMessages.T);
            OutputStream out = raw.getOutputStream();
            DataInputStream in = new DataInputStream(raw.getInputStream());
            out.write(PeerBytes.create().greeting30().ready("Socket-Type", "SUB")
                    .frame(false, new byte[] {1, 'a'}).toArray());
            out.flush();
            byte[] greeting = new byte[64];
            in.readFully(greeting);
            assertEquals(3, greeting[10], "major version");
            RawFrame ready = RawFrame.read(in);
            assertTrue(ready.command && ready.text().startsWith("\u0005READY"), "READY first, got " + ready.text());

            if (pubType == XPUB) {
                assertMessage(subscription(true, "a"), pub.recv(), "the 3.0 subscription shown by XPUB");
            } else {
                ByteMessages.eventually("PUB has the 3.0 subscription", () -> pub.subscriptionCount() == 1);
            }
            pub.send(msg("b1"));
            pub.send(msg("a1"));
            pub.send(msg("a2", "", "x"));
            assertEquals(List.of("a1"), RawFrame.readMessage(in));
            assertEquals(List.of("a2", "", "x"), RawFrame.readMessage(in));

            out.write(PeerBytes.create().frame(false, new byte[] {0, 'a'}).toArray());
            out.flush();
            if (pubType == XPUB) {
                assertMessage(subscription(false, "a"), pub.recv(), "the 3.0 cancel shown by XPUB");
            } else {
                ByteMessages.eventually("PUB dropped a", () -> pub.subscriptionCount() == 0);
            }
            out.write(PeerBytes.create().frame(false, new byte[] {1, 'c'}).toArray());
            out.flush();
            if (pubType == XPUB) {
                assertMessage(subscription(true, "c"), pub.recv(), "the 3.0 subscription to c");
            } else {
                ByteMessages.eventually("PUB has c", () -> pub.subscriptionCount() == 1);
            }
            pub.send(msg("a3"));
            pub.send(msg("c1"));
            assertEquals(List.of("c1"), RawFrame.readMessage(in), "a was cancelled");

            // Ten heartbeat intervals: a 3.0 peer gets no PING (RawFrame.read would return it).
            raw.setSoTimeout(200);
            assertThrows(SocketTimeoutException.class, () -> RawFrame.read(in), "nothing more, no PING");
            assertEquals(1, pub.peerCount(), "and we did not drop the 3.0 peer for not answering");
        }
    }

    /** One frame read from a raw connection. */
    static final class RawFrame {
        final boolean more;
        final boolean command;
        final byte[] body;

        RawFrame(int flags, byte[] body) {
            this.more = (flags & 1) != 0;
            this.command = (flags & 4) != 0;
            this.body = body;
        }

        static RawFrame read(DataInputStream in) throws IOException {
            int flags = in.readUnsignedByte();
            long size = (flags & 2) != 0 ? in.readLong() : in.readUnsignedByte();
            byte[] body = new byte[(int) size];
            in.readFully(body);
            return new RawFrame(flags, body);
        }

        /** The frames of the next message, as text; a command frame fails the test. */
        static List<String> readMessage(DataInputStream in) throws IOException {
            List<String> l = new ArrayList<>();
            RawFrame f;
            do {
                f = read(in);
                assertTrue(!f.command, "a message frame, not the command " + f.text());
                l.add(f.text());
            } while (f.more);
            return l;
        }

        String text() {
            return new String(body, StandardCharsets.ISO_8859_1);
        }
    }

    // ------------------------------------------------------------------ synchronisation

    /**
     * Waits until the publisher has the subscriber's subscriptions to {@code prefixes}. A libzmq
     * subscriber is polled meanwhile, as an application receiving on it would: libzmq attaches a
     * connection accepted by a bound socket (and sends it the subscriptions) only when the
     * application next calls into that socket.
     */
    static void awaitSubscribed(SocketEnd pub, SocketEnd sub, List<String> prefixes) {
        if (pub.type == XPUB) {
            // In any order: subscriptions made before the connection go out in prefix order.
            List<String> expected = new ArrayList<>();
            List<String> shown = new ArrayList<>();
            long deadline = System.nanoTime() + ByteMessages.T * 1_000_000;
            for (String p : prefixes) {
                expected.add(ByteMessages.show(subscription(true, p)));
                List<byte[]> m = null;
                while (m == null && System.nanoTime() < deadline) {
                    poke(sub);
                    m = pub.recv(20);
                }
                shown.add(ByteMessages.show(m));
            }
            assertEquals(expected.stream().sorted().toList(), shown.stream().sorted().toList(),
                    pub + " shows the subscriptions");
        } else if (pub.isOurs()) {
            int before = prefixes.size();
            ByteMessages.eventually(() -> pub + " has " + before + " prefixes", () -> {
                poke(sub);
                return ((SocketEnd.Ours) pub).subscriptionCount() >= before;
            });
        } else {
            // Subscriptions travel in order on one connection: once the last one filters, all do.
            List<byte[]> probe = msg(prefixes.get(prefixes.size() - 1) + "~probe");
            long deadline = System.nanoTime() + ByteMessages.T * 1_000_000;
            while (true) {
                pub.send(probe);
                List<byte[]> got = sub.recv(20);
                if (got != null) {
                    assertMessage(probe, got, "the probe");
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(pub + " never delivered to " + sub);
                }
            }
        }
    }

    /** Waits until the publisher has dropped {@code cancelled}; {@code kept} is still subscribed. */
    static void awaitCancelled(SocketEnd pub, SocketEnd sub, String cancelled, String kept, int left) {
        if (pub.type == XPUB) {
            assertMessage(subscription(false, cancelled), pub.recv(), pub + " shows the cancel of " + cancelled);
        } else if (pub.isOurs()) {
            ByteMessages.eventually(() -> pub + " has " + left + " prefixes",
                    () -> ((SocketEnd.Ours) pub).subscriptionCount() == left);
        } else {
            long deadline = System.nanoTime() + ByteMessages.T * 1_000_000;
            while (true) {
                pub.send(msg(cancelled + "~probe"));
                pub.send(msg(kept + "~mark"));
                boolean leaked = false;
                List<byte[]> got;
                do {
                    got = sub.recv();
                    if (got == null) {
                        throw new AssertionError(sub + " lost the mark");
                    }
                    leaked |= new String(got.get(0), StandardCharsets.UTF_8).equals(cancelled + "~probe");
                } while (!new String(got.get(0), StandardCharsets.UTF_8).equals(kept + "~mark"));
                if (!leaked) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(pub + " kept sending " + cancelled);
                }
            }
        }
    }

    /** Lets a libzmq subscriber's thread run its pending work (nothing may have arrived yet). */
    static void poke(SocketEnd sub) {
        if (!sub.isOurs()) {
            List<byte[]> m = sub.recv(1);
            if (m != null) {
                throw new AssertionError(sub + " received " + ByteMessages.show(m) + " before anything was published");
            }
        }
    }

    /** The next message that is not a probe. */
    static List<byte[]> next(SocketEnd sub) {
        while (true) {
            List<byte[]> m = sub.recv();
            if (m == null || !new String(m.get(0), StandardCharsets.UTF_8).contains("~")) {
                return m;
            }
        }
    }
}
