package io.zmtp.interop;

import io.netty.channel.EventLoop;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpProxy;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.zmtp.interop.ByteMessages.assertMessage;
import static io.zmtp.interop.ByteMessages.msg;
import static io.zmtp.interop.ByteMessages.subscription;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Our {@link ZmtpProxy} between libzmq peers: libzmq REQ clients through our ROUTER-DEALER proxy
 * to libzmq REP servers (each reply reaches the client that asked), and libzmq SUB subscribers
 * through our XSUB-XPUB proxy to a libzmq publisher (subscriptions flow upstream).
 */
class ProxyInteropTest extends LibzmqTestBase {
    SocketEnd.Libzmq libzmq(SocketType type) {
        SocketEnd.Libzmq e = SocketEnd.libzmq(zmq, type, null);
        ends.add(e);
        return e;
    }

    /** Frontend and backend of a proxy, on one event loop as the proxy requires. */
    ZmtpSocket[] proxy(SocketType front, SocketType back) {
        EventLoop loop = ctx.group().next();
        SocketOptions o = SocketOptions.builder().linger(Duration.ZERO).build();
        ZmtpSocket f = ctx.socket(front, o, loop);
        ZmtpSocket b = ctx.socket(back, o, loop);
        ZmtpProxy.start(f, b);
        return new ZmtpSocket[] {f, b};
    }

    static String bind(ZmtpSocket s) throws Exception {
        return s.bind("tcp://127.0.0.1:0").get(10, TimeUnit.SECONDS);
    }

    static int peerCount(ZmtpSocket s) {
        try {
            return s.eventLoop().submit(s::peerCount).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void libzmqReqClientsThroughOurRouterDealerProxyToLibzmqRepServers() throws Exception {
        ZmtpSocket[] p = proxy(SocketType.ROUTER, SocketType.DEALER);
        String frontend = bind(p[0]);
        String backend = bind(p[1]);
        List<SocketEnd.Libzmq> servers = List.of(libzmq(SocketType.REP), libzmq(SocketType.REP));
        for (SocketEnd.Libzmq rep : servers) {
            rep.connect(backend);
            zmq.serve(rep.id);
        }
        ByteMessages.eventually("both servers connected", () -> peerCount(p[1]) == 2);
        List<SocketEnd.Libzmq> clients = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
            SocketEnd.Libzmq req = libzmq(SocketType.REQ);
            req.connect(frontend);
            clients.add(req);
        }
        int rounds = 4;
        for (int r = 0; r < rounds; r++) {
            // Every client has a request in flight at once; each must get its own back.
            for (int c = 0; c < clients.size(); c++) {
                clients.get(c).send(msg("client " + c, "", "round " + r));
            }
            for (int c = 0; c < clients.size(); c++) {
                assertMessage(msg("client " + c, "", "round " + r), clients.get(c).recv(),
                        "client " + c + " got its own reply");
            }
        }
        int first = zmq.unserve(servers.get(0).id);
        int second = zmq.unserve(servers.get(1).id);
        assertEquals(rounds * clients.size(), first + second, "every request was answered once");
        assertTrue(first > 0 && second > 0, "the DEALER spread requests over both servers: " + first + "/" + second);
    }

    @Test
    void libzmqSubscribersThroughOurXsubXpubProxyToALibzmqPublisher() throws Exception {
        ZmtpSocket[] p = proxy(SocketType.XSUB, SocketType.XPUB);
        String upstream = bind(p[0]);
        String downstream = bind(p[1]);
        SocketEnd.Libzmq publisher = libzmq(SocketType.XPUB); // an XPUB, to see subscriptions arrive
        publisher.connect(upstream);
        SocketEnd.Libzmq s1 = libzmq(SocketType.SUB);
        SocketEnd.Libzmq s2 = libzmq(SocketType.SUB);
        s1.connect(downstream);
        s2.connect(downstream);
        s1.subscribe("alpha");
        s2.subscribe("beta");
        List<List<byte[]>> seen = List.of(publisher.recv(), publisher.recv());
        assertTrue(seen.stream().anyMatch(m -> ByteMessages.same(m, subscription(true, "alpha")))
                && seen.stream().anyMatch(m -> ByteMessages.same(m, subscription(true, "beta"))),
                "both subscriptions went upstream through the proxy: " + seen.stream().map(ByteMessages::show).toList());
        publisher.send(msg("gamma 1"));
        publisher.send(msg("alpha 1", "x"));
        publisher.send(msg("beta 1"));
        assertMessage(msg("alpha 1", "x"), s1.recv(), "alpha subscriber");
        assertMessage(msg("beta 1"), s2.recv(), "beta subscriber");

        s1.unsubscribe("alpha");
        assertMessage(subscription(false, "alpha"), publisher.recv(), "the cancel went upstream");
    }
}
