package io.zmtp.socket;

import io.zmtp.wire.SocketType;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * The routing table remembers the last id object it found: routing again with the same
 * {@link RoutingId} skips the map, and any change of the table is seen by the next lookup.
 */
class RoutingTableTest extends ContextTest {

    @Test
    void theSameIdObjectFindsItsPeerAgainUntilThePeerLeaves() {
        ZmtpSocket owner = ctx.socket(SocketType.ROUTER);
        RoutingTable table = new RoutingTable();
        Pipe worker = new IdentityPipe(owner, "W");
        Pipe client = new IdentityPipe(owner, "C");
        table.add(worker, false);
        table.add(client, false);
        RoutingId w = RoutingId.ofText("W");
        assertSame(worker, table.get(w));
        assertSame(worker, table.get(w), "found again by the same object");
        assertSame(client, table.get(RoutingId.ofText("C")));
        assertSame(worker, table.get(w), "after a lookup of another id");
        table.remove(worker);
        assertNull(table.get(w), "a peer that left is not found through the remembered id");
    }

    @Test
    void aHandoverIsSeenByTheNextLookupOfTheSameIdObject() {
        ZmtpSocket owner = ctx.socket(SocketType.ROUTER);
        RoutingTable table = new RoutingTable();
        Pipe first = new IdentityPipe(owner, "twin");
        Pipe second = new IdentityPipe(owner, "twin");
        RoutingId twin = RoutingId.ofText("twin");
        table.add(first, true);
        assertSame(first, table.get(twin));
        assertSame(first, table.add(second, true), "the first twin is displaced");
        assertSame(second, table.get(twin), "the id now names the second twin");
    }

    @Test
    void anIdNotFoundIsNotRemembered() {
        ZmtpSocket owner = ctx.socket(SocketType.ROUTER);
        RoutingTable table = new RoutingTable();
        RoutingId late = RoutingId.ofText("late");
        assertNull(table.get(late));
        Pipe p = new IdentityPipe(owner, "late");
        table.add(p, false);
        assertSame(p, table.get(late), "a peer that comes after a miss is found");
    }
}
