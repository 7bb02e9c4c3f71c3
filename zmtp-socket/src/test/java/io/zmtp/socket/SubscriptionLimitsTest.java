package io.zmtp.socket;

import io.zmtp.testing.PeerBytes;
import io.zmtp.testing.RawPeer;
import io.zmtp.wire.SocketType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static io.zmtp.socket.SocketTesting.eventually;
import static io.zmtp.socket.SocketTesting.get;
import static io.zmtp.socket.SocketTesting.onLoop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Subscriptions a peer chooses are bounded: a huge prefix and a flood of prefixes each get that
 * peer disconnected with a clear reason, the publisher's memory for subscriptions returns to
 * what the good subscriber needs, and the good subscriber is served during and after.
 */
class SubscriptionLimitsTest {
    ZmtpContext ctx;
    PubSocket pub;
    String ep;
    SocketTesting.Events events;
    SocketTesting.Inbox good;
    int baselineNodes;
    long baselineBytes;

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(2);
        pub = (PubSocket) ctx.socket(SocketType.PUB);
        events = new SocketTesting.Events(pub);
        ep = get(pub.bind("tcp://127.0.0.1:0"));
        SubSocket sub = (SubSocket) ctx.socket(SocketType.SUB);
        good = new SocketTesting.Inbox(sub);
        get(sub.subscribe("good"));
        get(sub.connect(ep));
        eventually("the good subscriber's prefix reached the PUB", () -> onLoop(pub, pub::subscriptionCount) == 1);
        baselineNodes = onLoop(pub, pub::subscriptionNodes);
        baselineBytes = onLoop(pub, pub::subscriptionBytes);
    }

    @AfterEach
    void stop() {
        ctx.close(Duration.ofSeconds(5));
    }

    private void goodSubscriberIsServed(String body) {
        pub.send("good", body);
        assertEquals(List.of("good", body), good.next());
    }

    /** A one-frame subscription message (ZMTP 3.0 form) for a prefix of {@code size} bytes {@code fill}. */
    static byte[] subscribeMessage(int size, byte fill) {
        byte[] body = new byte[size + 1];
        Arrays.fill(body, fill);
        body[0] = 1;
        return PeerBytes.create().frame(false, body).toArray();
    }

    private String disconnectReason() {
        SocketEvent e = events.first(SocketEvent.Type.DISCONNECTED);
        return e == null ? null : e.reason();
    }

    @Test
    void anEightMebibyteSubscriptionGetsThePeerDisconnected() throws Exception {
        // The ZMTP 3.0 message form: byte 1 and the prefix, up to the maximum message size
        // (the codec already bounds command frames, so SUBSCRIBE commands cannot be this long).
        byte[] attack = subscribeMessage(8 << 20, (byte) 'z');
        try (RawPeer bad = RawPeer.handshaken(ep, null, "SUB")) {
            CompletableFuture<Boolean> writing = CompletableFuture.supplyAsync(() -> bad.write(attack));
            goodSubscriberIsServed("during");
            assertTrue(bad.closedWithin(10_000), "the PUB closed the attacker's connection");
            writing.join();
        }
        events.await(SocketEvent.Type.DISCONNECTED);
        assertTrue(disconnectReason().contains("exceeds the maximum of 4096"), disconnectReason());
        eventually("only the good subscriber's prefix is held",
                () -> onLoop(pub, pub::subscriptionCount) == 1
                        && onLoop(pub, pub::subscriptionNodes) == baselineNodes
                        && onLoop(pub, pub::subscriptionBytes) == baselineBytes);
        goodSubscriberIsServed("after");
    }

    @Test
    void aHundredThousandSubscriptionsFromOnePeerGetItDisconnectedAtTheLimit() throws Exception {
        ByteArrayOutputStream flood = new ByteArrayOutputStream();
        for (int i = 0; i < 100_000; i++) {
            // The ZMTP 3.0 message form, which every version of the protocol accepts.
            flood.write(PeerBytes.create().frame(false, "\u0001t" + i).toArray());
        }
        try (RawPeer bad = RawPeer.handshaken(ep, null, "SUB")) {
            CompletableFuture<Boolean> writing = CompletableFuture.supplyAsync(() -> bad.write(flood.toByteArray()));
            goodSubscriberIsServed("during");
            assertTrue(bad.closedWithin(10_000), "the PUB closed the attacker's connection");
            writing.join();
        }
        events.await(SocketEvent.Type.DISCONNECTED);
        assertTrue(disconnectReason().contains("more than 10000 subscriptions"), disconnectReason());
        eventually("the attacker's 10,000 prefixes are gone with it",
                () -> onLoop(pub, pub::subscriptionCount) == 1
                        && onLoop(pub, pub::subscriptionNodes) == baselineNodes
                        && onLoop(pub, pub::subscriptionBytes) == baselineBytes);
        goodSubscriberIsServed("after");
    }

    @Test
    void longPrefixesWithinTheLimitsAreKeptAndReleasedWhenTheSubscriberLeaves() throws Exception {
        PubSocket roomy = (PubSocket) ctx.socket(SocketType.PUB,
                SocketOptions.builder().maxSubscriptionSize(1 << 20).maxSubscriptionBytes(4 << 20).build());
        String roomyEp = get(roomy.bind("tcp://127.0.0.1:0"));
        int emptyNodes = onLoop(roomy, roomy::subscriptionNodes);
        int size = 1 << 20;
        try (RawPeer peer = RawPeer.handshaken(roomyEp, null, "SUB")) {
            peer.write(subscribeMessage(size, (byte) 'q'));
            byte[] second = subscribeMessage(size, (byte) 'q');
            second[second.length - 1] = 'r';
            peer.write(second);
            eventually("both 1 MiB prefixes are held", () -> onLoop(roomy, roomy::subscriptionCount) == 2);
            assertEquals(emptyNodes + 3, onLoop(roomy, roomy::subscriptionNodes), "the shared part is one edge");
            assertEquals(size + 1, onLoop(roomy, roomy::subscriptionBytes));
            // Cancelling a long prefix used to recurse once per byte.
            second[second.length - size - 1] = 0;   // the first body byte: 0 cancels
            peer.write(second);
            eventually("the cancelled prefix is gone", () -> onLoop(roomy, roomy::subscriptionCount) == 1);
        }
        eventually("the subscriber left and took its subscriptions along",
                () -> onLoop(roomy, roomy::subscriptionCount) == 0
                        && onLoop(roomy, roomy::subscriptionNodes) == emptyNodes
                        && onLoop(roomy, roomy::subscriptionBytes) == 0);
    }

    @Test
    void xpubAppliesTheSameLimits() throws Exception {
        XPubSocket xpub = (XPubSocket) ctx.socket(SocketType.XPUB, SocketOptions.builder().maxSubscriptions(3).build());
        SocketTesting.Events xe = new SocketTesting.Events(xpub);
        SocketTesting.Inbox seen = new SocketTesting.Inbox(xpub);
        String xep = get(xpub.bind("tcp://127.0.0.1:0"));
        try (RawPeer peer = RawPeer.handshaken(xep, null, "SUB")) {
            for (int i = 0; i < 4; i++) {
                peer.write(PeerBytes.create().command("SUBSCRIBE", ("p" + i).getBytes(StandardCharsets.US_ASCII)).toArray());
            }
            assertTrue(peer.closedWithin(10_000), "the fourth subscription closed the connection");
        }
        xe.await(SocketEvent.Type.DISCONNECTED);
        assertTrue(xe.first(SocketEvent.Type.DISCONNECTED).reason().contains("more than 3 subscriptions"));
        eventually("no prefix is held", () -> onLoop(xpub, xpub::subscriptionCount) == 0);
        // Three subscriptions were passed on, and cancelled when their subscriber went.
        for (int i = 0; i < 3; i++) {
            assertEquals("\u0001p" + i, seen.next().get(0));
        }
        for (int i = 0; i < 3; i++) {
            assertTrue(seen.next().get(0).startsWith("\u0000p"));
        }
    }
}
