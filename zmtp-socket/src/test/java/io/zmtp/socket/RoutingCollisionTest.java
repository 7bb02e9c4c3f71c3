package io.zmtp.socket;

import io.netty.buffer.Unpooled;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.zmtp.socket.SocketTesting.awaitPeers;
import static io.zmtp.socket.SocketTesting.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * Routing ids and subscription prefixes that collide under {@code Arrays.hashCode} ("Aa" and "BB"
 * hash alike, so do all their concatenations) still route correctly: the tables key by
 * {@link RoutingId}, whose hash is seeded.
 */
class RoutingCollisionTest extends ContextTest {

    /** The 2^n strings of n blocks, each "Aa" or "BB": they all have one Arrays.hashCode. */
    static List<String> collidingIds(int blocks) {
        List<String> ids = new ArrayList<>();
        for (int bits = 0; bits < 1 << blocks; bits++) {
            StringBuilder s = new StringBuilder();
            for (int i = 0; i < blocks; i++) {
                s.append((bits >> i & 1) == 0 ? "Aa" : "BB");
            }
            ids.add(s.toString());
        }
        return ids;
    }

    @Test
    void collidingIdsAreTheAttackWeMeanToDefuse() {
        List<String> ids = collidingIds(10);
        int h = Arrays.hashCode(ids.get(0).getBytes(StandardCharsets.US_ASCII));
        for (String id : ids) {
            assertEquals(h, Arrays.hashCode(id.getBytes(StandardCharsets.US_ASCII)));
        }
    }

    @Test
    void aRoutingTableOfThousandsOfCollidingIdsFindsEachByItsFrame() {
        ZmtpSocket owner = ctx.socket(SocketType.ROUTER);
        RoutingTable table = new RoutingTable();
        List<String> ids = collidingIds(12);   // 4096 ids
        List<Pipe> pipes = new ArrayList<>();
        for (String id : ids) {
            Pipe p = new IdentityPipe(owner, id);
            pipes.add(p);
            assertEquals(null, table.add(p, false));
        }
        for (int i = 0; i < ids.size(); i++) {
            byte[] id = ids.get(i).getBytes(StandardCharsets.US_ASCII);
            assertSame(pipes.get(i), table.get(Unpooled.wrappedBuffer(id)));
            assertSame(pipes.get(i), table.get(id));
        }
        for (Pipe p : pipes) {
            table.remove(p);
        }
        assertEquals(0, table.size());
    }

    @Test
    void aRouterRoutesToDealersWithCollidingIdentities() {
        RouterSocket router = (RouterSocket) ctx.socket(SocketType.ROUTER);
        get(router.bind("inproc://collide"));
        List<String> ids = collidingIds(6);   // 64 dealers
        List<SocketTesting.Inbox> inboxes = new ArrayList<>();
        for (String id : ids) {
            ZmtpSocket dealer = ctx.socket(SocketType.DEALER, SocketOptions.builder().identity(id).build());
            inboxes.add(new SocketTesting.Inbox(dealer));
            get(dealer.connect("inproc://collide"));
        }
        awaitPeers(router, ids.size());
        for (String id : ids) {
            router.send(ZmtpMessage.ofStrings(id, "for " + id));
        }
        for (int i = 0; i < ids.size(); i++) {
            assertEquals(List.of("for " + ids.get(i)), inboxes.get(i).next());
        }
    }

    @Test
    void subscriptionsWithCollidingPrefixesAreCountedPerPrefix() {
        PubSocket pub = (PubSocket) ctx.socket(SocketType.PUB);
        String ep = get(pub.bind("tcp://127.0.0.1:0"));
        SubSocket sub = (SubSocket) ctx.socket(SocketType.SUB);
        SocketTesting.Inbox inbox = new SocketTesting.Inbox(sub);
        List<String> prefixes = collidingIds(10);   // 1024 prefixes of one Arrays.hashCode
        for (String p : prefixes) {
            sub.subscribe(p);
        }
        get(sub.connect(ep));
        SocketTesting.eventually("all prefixes reached the PUB", () -> PubSubTest.subscriptions(pub) == prefixes.size());
        get(sub.unsubscribe(prefixes.get(1)));
        SocketTesting.eventually("one cancelled", () -> PubSubTest.subscriptions(pub) == prefixes.size() - 1);
        pub.send(prefixes.get(1), "cancelled");
        pub.send(prefixes.get(2), "kept");
        assertEquals(List.of(prefixes.get(2), "kept"), inbox.next());
    }
}
