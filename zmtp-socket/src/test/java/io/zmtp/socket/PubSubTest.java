package io.zmtp.socket;

import io.zmtp.testing.PeerBytes;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpOptions;
import io.zmtp.wire.ZmtpVersion;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static io.zmtp.socket.SocketTesting.T;
import static io.zmtp.socket.SocketTesting.eventually;
import static io.zmtp.socket.SocketTesting.get;
import static io.zmtp.socket.SocketTesting.onLoop;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Subscriptions: prefixes, counts, many of them, resending, 3.0 peers, XPUB/XSUB. */
class PubSubTest extends ContextTest {

    static int subscriptions(PubSocket pub) {
        return onLoop(pub, pub::subscriptionCount);
    }

    /** How many of the XPUB's peers have subscribed to {@code prefix} (as its filter holds them). */
    static int subscribersOf(XPubSocket xpub, String prefix) {
        RoutingId p = RoutingId.of(prefix.getBytes(StandardCharsets.UTF_8));
        return onLoop(xpub, () -> (int) xpub.pipes().stream()
                .filter(pipe -> pipe.subscriber != null && pipe.subscriber.prefixes.contains(p)).count());
    }

    @Test
    void subscriptionsAreCountedBinaryPrefixes() {
        PubSocket pub = (PubSocket) ctx.socket(SocketType.PUB);
        String ep = get(pub.bind("tcp://127.0.0.1:0"));
        SubSocket sub = (SubSocket) ctx.socket(SocketType.SUB);
        SocketTesting.Inbox inbox = new SocketTesting.Inbox(sub);
        byte[] binary = {0, (byte) 0xFF, 1};
        get(sub.subscribe(binary));
        get(sub.subscribe("A"));
        get(sub.subscribe("A"));
        get(sub.connect(ep));
        eventually("both prefixes reached the PUB", () -> subscriptions(pub) == 2);
        pub.send(ZmtpMessage.of(new byte[] {0, (byte) 0xFF, 1, 9}, "bin".getBytes()));
        assertEquals("bin", inbox.next().get(1));
        get(sub.unsubscribe("A"));
        pub.send("A", "still subscribed once");
        assertEquals("still subscribed once", inbox.next().get(1));
        get(sub.unsubscribe("A"));
        eventually("the last cancel reached the PUB", () -> subscriptions(pub) == 1);
        pub.send("A", "gone");
        pub.send(ZmtpMessage.of(new byte[] {0, (byte) 0xFF, 1}, "marker".getBytes()));
        assertEquals("marker", inbox.next().get(1), "nothing on A arrives any more");
    }

    @Test
    void emptyPrefixMatchesEverything() {
        PubSocket pub = (PubSocket) ctx.socket(SocketType.PUB);
        String ep = get(pub.bind("inproc://all"));
        SubSocket sub = (SubSocket) ctx.socket(SocketType.SUB);
        SocketTesting.Inbox inbox = new SocketTesting.Inbox(sub);
        get(sub.subscribe(new byte[0]));
        get(sub.connect(ep));
        eventually("subscribed", () -> subscriptions(pub) == 1);
        pub.send("anything");
        pub.send(ZmtpMessage.of(new byte[0]));
        assertEquals(List.of("anything"), inbox.next());
        assertEquals(List.of(""), inbox.next());
    }

    @Test
    void aSubWithTenThousandPrefixes() {
        PubSocket pub = (PubSocket) ctx.socket(SocketType.PUB);
        String ep = get(pub.bind("tcp://127.0.0.1:0"));
        SubSocket sub = (SubSocket) ctx.socket(SocketType.SUB);
        SocketTesting.Inbox inbox = new SocketTesting.Inbox(sub);
        for (int i = 0; i < 10_000; i++) {
            sub.subscribe("topic." + i + ".");
        }
        get(sub.connect(ep));
        eventually("all 10,000 prefixes reached the PUB", () -> subscriptions(pub) == 10_000);
        for (int i = 0; i < 10_000; i += 997) {
            pub.send("topic." + i + ".x", "m" + i);
            pub.send("topic." + i + "x", "no match");
        }
        pub.send("other", "no match");
        pub.send("topic.0.end", "marker");
        // One connection keeps the order: a message that passed the filter wrongly would come
        // before the next expected one, the last "no match" before the marker.
        for (int i = 0; i < 10_000; i += 997) {
            assertEquals(List.of("topic." + i + ".x", "m" + i), inbox.next());
        }
        assertEquals(List.of("topic.0.end", "marker"), inbox.next(), "non-matching messages were filtered");
    }

    @Test
    void subResendsItsSubscriptionsToARestartedPublisher() {
        int port = FlowControlTest.freePort();
        String ep = "tcp://127.0.0.1:" + port;
        PubSocket pub = (PubSocket) ctx.socket(SocketType.PUB);
        get(pub.bind(ep));
        SubSocket sub = (SubSocket) ctx.socket(SocketType.SUB, SocketOptions.builder()
                .reconnectInterval(Duration.ofMillis(20)).build());
        SocketTesting.Inbox inbox = new SocketTesting.Inbox(sub);
        get(sub.subscribe("news"));
        get(sub.connect(ep));
        eventually("subscribed", () -> subscriptions(pub) == 1);
        get(pub.close(Duration.ZERO));
        PubSocket again = (PubSocket) ctx.socket(SocketType.PUB);
        get(again.bind(ep));
        eventually("the subscription was sent again", () -> subscriptions(again) == 1);
        again.send("news", "after restart");
        assertEquals(List.of("news", "after restart"), inbox.next());
    }

    @Test
    void aZmtp30SubscriberUsesTheMessageForm() {
        PubSocket pub = (PubSocket) ctx.socket(SocketType.PUB);
        String ep = get(pub.bind("tcp://127.0.0.1:0"));
        SubSocket old = (SubSocket) ctx.socket(SocketType.SUB, SocketOptions.builder().version(ZmtpVersion.V3_0).build());
        SocketTesting.Inbox inbox = new SocketTesting.Inbox(old);
        get(old.subscribe("v30"));
        get(old.connect(ep));
        eventually("the 3.0 subscriber's message-form subscription counts", () -> subscriptions(pub) == 1);
        pub.send("v30", "ok");
        assertEquals(List.of("v30", "ok"), inbox.next());
    }

    @Test
    void aHandWritten30PeerSubscribesWithAMessageAndReceives() throws Exception {
        PubSocket pub = (PubSocket) ctx.socket(SocketType.PUB);
        String ep = get(pub.bind("tcp://127.0.0.1:0"));
        int port = Integer.parseInt(ep.substring(ep.lastIndexOf(':') + 1));
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.getOutputStream().write(PeerBytes.create().greeting30().ready("Socket-Type", "SUB")
                    .frame(false, "\u0001weather").toArray());
            eventually("subscribed through the message form", () -> subscriptions(pub) == 1);
            pub.send("weather", "sunny");
            DataInputStream in = new DataInputStream(s.getInputStream());
            skipGreetingAndReady(in);
            assertArrayEquals(PeerBytes.create().frame(true, "weather").frame(false, "sunny").toArray(),
                    readN(in, 2 + 7 + 2 + 5));
        }
    }

    static void skipGreetingAndReady(DataInputStream in) throws Exception {
        readN(in, 64);
        int flags = in.readUnsignedByte();
        assertEquals(0x04, flags);
        readN(in, in.readUnsignedByte());
    }

    static byte[] readN(InputStream in, int n) throws Exception {
        byte[] b = new byte[n];
        new DataInputStream(in).readFully(b);
        return b;
    }

    @Test
    void xpubShowsNewSubscriptionsAndXsubSubscribesWithMessages() {
        ZmtpSocket xpub = ctx.socket(SocketType.XPUB);
        SocketTesting.Inbox seen = new SocketTesting.Inbox(xpub);
        String ep = get(xpub.bind("tcp://127.0.0.1:0"));
        ZmtpSocket xsub = ctx.socket(SocketType.XSUB);
        SocketTesting.Inbox got = new SocketTesting.Inbox(xsub);
        get(xsub.connect(ep));
        SubSocket sub = (SubSocket) ctx.socket(SocketType.SUB);
        get(sub.subscribe("k"));
        get(sub.connect(ep));
        get(xsub.send("\u0001k"));
        assertEquals(List.of("\u0001k"), seen.next(), "the first subscriber of k is shown");
        // Wait until both subscriptions of k have reached the XPUB (it shows a subscription in the
        // same step as it takes it), then a negative window: the second is not shown.
        eventually("both peers subscribed to k", () -> subscribersOf((XPubSocket) xpub, "k") == 2);
        assertNull(seen.poll(100), "the second subscriber of the same prefix is not (not verbose)");
        xpub.send("k1", "data");
        assertEquals(List.of("k1", "data"), got.next());
        get(xsub.send("\u0000k"));
        get(sub.close(Duration.ZERO));
        assertEquals(List.of("\u0000k"), seen.next(), "the last cancel of k is shown");
    }

    @Test
    void anXsubXpubProxyForwardsSubscriptionsUpAndMessagesDown() {
        ZmtpSocket xsub = ctx.socket(SocketType.XSUB);
        ZmtpSocket xpub = ctx.socket(SocketType.XPUB, SocketOptions.DEFAULTS, xsub.eventLoop());
        String upstream = "inproc://publishers";
        PubSocket pub = (PubSocket) ctx.socket(SocketType.PUB);
        get(pub.bind(upstream));
        get(xsub.connect(upstream));
        String downstream = get(xpub.bind("tcp://127.0.0.1:0"));
        ZmtpProxy.start(xsub, xpub);
        SubSocket sub = (SubSocket) ctx.socket(SocketType.SUB);
        SocketTesting.Inbox inbox = new SocketTesting.Inbox(sub);
        get(sub.subscribe("q"));
        get(sub.connect(downstream));
        eventually("the subscription went up through the proxy", () -> subscriptions(pub) == 1);
        pub.send("q", "through the proxy");
        pub.send("q", "next");
        // One path in order: a second copy of the first message would come before the next.
        assertEquals(List.of("q", "through the proxy"), inbox.next());
        assertEquals(List.of("q", "next"), inbox.next(), "each message comes down once");
    }

    @Test
    void xpubVerbosePassesEverySubscribe() {
        ZmtpSocket xpub = ctx.socket(SocketType.XPUB, SocketOptions.builder().xpubVerbose(true).build());
        SocketTesting.Inbox seen = new SocketTesting.Inbox(xpub);
        String ep = get(xpub.bind("inproc://verbose"));
        for (int i = 0; i < 2; i++) {
            SubSocket sub = (SubSocket) ctx.socket(SocketType.SUB);
            get(sub.subscribe("v"));
            get(sub.connect(ep));
        }
        assertEquals(List.of("\u0001v"), seen.next());
        assertEquals(List.of("\u0001v"), seen.next());
    }

    @Test
    void subscriptionMessageFormIsUnderstoodFromAnyPeer() {
        ZmtpOptions check = ZmtpOptions.builder(SocketType.SUB).build();
        assertTrue(check.localMetadata().socketType() == SocketType.SUB);
        ZmtpMessage m = ZmtpMessage.ofStrings("\u0001ab");
        io.zmtp.wire.ZmtpSubscription s = io.zmtp.wire.ZmtpSubscription.fromMessage(m);
        assertTrue(s.isSubscribe());
        assertEquals("ab", s.topic().toString(StandardCharsets.UTF_8));
        s.release();
        m.release();
        ZmtpMessage two = ZmtpMessage.ofStrings("\u0001ab", "x");
        assertNull(io.zmtp.wire.ZmtpSubscription.fromMessage(two), "only one-frame messages are subscriptions");
        two.release();
    }
}
