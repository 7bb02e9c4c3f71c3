package io.zmtp.interop;

import io.zmtp.socket.SocketEvent;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.SocketType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.zmtp.interop.ByteMessages.assertMessage;
import static io.zmtp.interop.ByteMessages.msg;
import static io.zmtp.interop.ByteMessages.subscription;

/**
 * Connections that survive a peer's restart: our connecting sockets find a libzmq peer again
 * after its process was killed (or its socket closed) and started on the same port, queued sends
 * go out on the new connection, and our SUB sends its subscriptions again; libzmq finds our
 * ROUTER again after we close it and bind a new one on the same port.
 */
class ReconnectInteropTest {
    ZmtpContext ctx;
    final List<LibzmqPeer> peers = new ArrayList<>();
    final List<SocketEnd> ends = new ArrayList<>();
    @TempDir
    Path tmp;

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(2);
    }

    @AfterEach
    void stop() {
        ends.forEach(SocketEnd::close);
        ctx.close(Duration.ofSeconds(5));
        peers.forEach(LibzmqPeer::close);
    }

    LibzmqPeer peer() {
        LibzmqPeer p = LibzmqPeer.start();
        peers.add(p);
        return p;
    }

    <E extends SocketEnd> E keep(E e) {
        ends.add(e);
        return e;
    }

    /** Our socket with a recorder of its events. */
    static List<SocketEvent> events(SocketEnd.Ours ours) {
        List<SocketEvent> l = new CopyOnWriteArrayList<>();
        ours.socket().monitor(l::add);
        return l;
    }

    static long count(List<SocketEvent> events, SocketEvent.Type t) {
        return events.stream().filter(e -> e.type() == t).count();
    }

    /**
     * Binds a libzmq socket on a port that was just in use, waiting while the old listener's
     * close completes (libzmq closes sockets in the background).
     */
    static String bindAgain(SocketEnd.Libzmq e, String endpoint) {
        long deadline = System.nanoTime() + ByteMessages.T * 1_000_000;
        while (true) {
            try {
                return e.peer.bind(e.id, endpoint);
            } catch (LibzmqPeer.LibzmqError err) {
                if (!err.answer.contains("Address already in use") || System.nanoTime() > deadline) {
                    throw err;
                }
                ByteMessages.pause();
            }
        }
    }

    @Test
    void ourDealerReconnectsToAKilledAndRestartedLibzmqRouter() {
        LibzmqPeer first = peer();
        SocketEnd.Libzmq router = SocketEnd.libzmq(first, SocketType.ROUTER, null);
        String ep = router.bind("tcp", tmp);
        SocketEnd.Ours dealer = keep(SocketEnd.ours(ctx, SocketType.DEALER, "our-dealer"));
        List<SocketEvent> events = events(dealer);
        dealer.connect(ep);
        dealer.send(msg("before"));
        assertMessage(msg("our-dealer", "before"), router.recv(), "first router");

        first.kill();
        ByteMessages.eventually(() -> "DISCONNECTED in " + events, () -> count(events, SocketEvent.Type.DISCONNECTED) == 1);
        dealer.send(msg("while away", "")); // waits for a peer

        SocketEnd.Libzmq again = keep(SocketEnd.libzmq(peer(), SocketType.ROUTER, null));
        bindAgain(again, ep);
        assertMessage(msg("our-dealer", "while away", ""), again.recv(), "the restarted router got the queued send");
        again.send(msg("our-dealer", "welcome back"));
        assertMessage(msg("welcome back"), dealer.recv(), "reply on the new connection");
        ByteMessages.eventually(() -> "two handshakes in " + events,
                () -> count(events, SocketEvent.Type.HANDSHAKE_SUCCEEDED) == 2);
    }

    @Test
    void ourReqReconnectsToAKilledAndRestartedLibzmqRep() {
        LibzmqPeer first = peer();
        SocketEnd.Libzmq rep = SocketEnd.libzmq(first, SocketType.REP, null);
        String ep = rep.bind("tcp", tmp);
        SocketEnd.Ours req = keep(SocketEnd.ours(ctx, SocketType.REQ, null));
        List<SocketEvent> events = events(req);
        req.connect(ep);
        for (int i = 0; i < 3; i++) {
            req.send(msg("request " + i));
            assertMessage(msg("request " + i), rep.recv(), "first REP");
            rep.send(msg("reply " + i));
            assertMessage(msg("reply " + i), req.recv(), "first reply");
        }

        first.kill();
        ByteMessages.eventually(() -> "DISCONNECTED in " + events, () -> count(events, SocketEvent.Type.DISCONNECTED) == 1);
        SocketEnd.Libzmq again = keep(SocketEnd.libzmq(peer(), SocketType.REP, null));
        bindAgain(again, ep);
        for (int i = 0; i < 3; i++) {
            req.send(msg("again " + i));
            assertMessage(msg("again " + i), again.recv(), "restarted REP");
            again.send(msg("reply again " + i));
            assertMessage(msg("reply again " + i), req.recv(), "reply from the restarted REP");
        }
    }

    /** The restarted publisher is an XPUB, so the re-sent subscriptions can be seen arriving. */
    @Test
    void ourSubResendsItsSubscriptionsToARestartedLibzmqPublisher() {
        LibzmqPeer zmq = peer();
        SocketEnd.Libzmq xpub = SocketEnd.libzmq(zmq, SocketType.XPUB, null);
        String ep = xpub.bind("tcp", tmp);
        SocketEnd.Ours sub = keep(SocketEnd.ours(ctx, SocketType.SUB, null));
        List<SocketEvent> events = events(sub);
        sub.connect(ep);
        sub.subscribe("news");
        sub.subscribe("weather");
        assertMessage(subscription(true, "news"), xpub.recv(), "subscription");
        assertMessage(subscription(true, "weather"), xpub.recv(), "subscription");
        xpub.send(msg("news 1"));
        assertMessage(msg("news 1"), sub.recv(), "before the restart");

        xpub.close();
        ByteMessages.eventually(() -> "DISCONNECTED in " + events, () -> count(events, SocketEvent.Type.DISCONNECTED) == 1);
        SocketEnd.Libzmq again = keep(SocketEnd.libzmq(zmq, SocketType.XPUB, null));
        bindAgain(again, ep);
        assertMessage(subscription(true, "news"), again.recv(), "news sent again to the new publisher");
        assertMessage(subscription(true, "weather"), again.recv(), "weather sent again to the new publisher");
        again.send(msg("sport 1"));
        again.send(msg("weather 1", "sunny"));
        assertMessage(msg("weather 1", "sunny"), sub.recv(), "after the restart");
    }

    /** A plain libzmq PUB, killed with its process: we learn it filters again by receiving. */
    @Test
    void ourSubKeepsReceivingFromAKilledAndRestartedLibzmqPub() {
        SocketEnd.Libzmq pub = SocketEnd.libzmq(peer(), SocketType.PUB, null);
        String ep = pub.bind("tcp", tmp);
        SocketEnd.Ours sub = keep(SocketEnd.ours(ctx, SocketType.SUB, null));
        List<SocketEvent> events = events(sub);
        sub.connect(ep);
        sub.subscribe("t");
        PubSubInteropTest.awaitSubscribed(pub, sub, List.of("t"));
        pub.send(msg("u0"));
        pub.send(msg("t0"));
        assertMessage(msg("t0"), PubSubInteropTest.next(sub), "before the kill");

        pub.peer.kill();
        ByteMessages.eventually(() -> "DISCONNECTED in " + events, () -> count(events, SocketEvent.Type.DISCONNECTED) == 1);
        SocketEnd.Libzmq again = keep(SocketEnd.libzmq(peer(), SocketType.PUB, null));
        bindAgain(again, ep);
        PubSubInteropTest.awaitSubscribed(again, sub, List.of("t"));
        again.send(msg("u1"));
        again.send(msg("t1"));
        assertMessage(msg("t1"), PubSubInteropTest.next(sub), "after the restart, still filtered by t");
    }

    /** The other way round: libzmq's DEALER reconnects to our ROUTER, closed and bound again. */
    @Test
    void libzmqDealerReconnectsToOurRestartedRouter() {
        LibzmqPeer zmq = peer();
        SocketEnd.Ours router = SocketEnd.ours(ctx, SocketType.ROUTER, null);
        String ep = router.bind("tcp", tmp);
        SocketEnd.Libzmq dealer = keep(SocketEnd.libzmq(zmq, SocketType.DEALER, "their-dealer"));
        zmq.monitor(dealer.id);
        dealer.connect(ep);
        dealer.send(msg("one"));
        assertMessage(msg("their-dealer", "one"), router.recv(), "first router");
        router.close();
        // A send before libzmq notices the close could go into the dead connection.
        ByteMessages.eventually(() -> "libzmq saw the disconnect: " + zmq.events(dealer.id),
                () -> zmq.events(dealer.id).contains("DISCONNECTED"));

        SocketEnd.Ours again = keep(SocketEnd.ours(ctx, SocketType.ROUTER, null));
        ByteMessages.eventually("bound " + ep + " again", () -> {
            try {
                again.blocking.bind(ep);
                return true;
            } catch (RuntimeException e) {
                return false;
            }
        });
        dealer.send(msg("two"));
        assertMessage(msg("their-dealer", "two"), again.recv(), "the new router");
        again.send(msg("their-dealer", "hello again"));
        assertMessage(msg("hello again"), dealer.recv(), "libzmq reconnected");
    }
}
