package io.zmtp.socket;

import io.zmtp.testing.PeerBytes;
import io.zmtp.testing.RawPeer;
import io.zmtp.wire.ConnectionFailed;
import io.zmtp.wire.SocketType;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.zmtp.socket.SocketTesting.eventually;
import static io.zmtp.socket.SocketTesting.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Monitor events about a peer carry what the codec knows (the kind of failure) and, on a ROUTER,
 * the peer's routing id: an application can forget exactly the peer that left.
 */
class MonitorEventsTest {

    private static SocketEvent first(List<SocketEvent> events, SocketEvent.Type type) {
        return events.stream().filter(e -> e.type() == type).findFirst().orElseThrow();
    }

    private static boolean has(List<SocketEvent> events, SocketEvent.Type type) {
        return events.stream().anyMatch(e -> e.type() == type);
    }

    @Test
    void aRouterNamesThePeerThatCameAndLeft() {
        for (String transport : List.of("tcp://127.0.0.1:0", "inproc://monitor-events")) {
            try (ZmtpContext ctx = ZmtpContext.create(1)) {
                ZmtpSocket router = ctx.socket(SocketType.ROUTER);
                List<SocketEvent> events = new CopyOnWriteArrayList<>();
                router.monitor(events::add);
                String ep = get(router.bind(transport));
                ZmtpSocket dealer = ctx.socket(SocketType.DEALER,
                        SocketOptions.builder().identity("alice".getBytes(StandardCharsets.US_ASCII)).build());
                get(dealer.connect(ep));
                eventually("handshake", () -> has(events, SocketEvent.Type.HANDSHAKE_SUCCEEDED));
                SocketEvent hello = first(events, SocketEvent.Type.HANDSHAKE_SUCCEEDED);
                assertEquals("alice", hello.routingId().toString(), transport);
                get(dealer.close(java.time.Duration.ZERO));
                eventually("disconnect", () -> has(events, SocketEvent.Type.DISCONNECTED));
                SocketEvent bye = first(events, SocketEvent.Type.DISCONNECTED);
                assertEquals("alice", bye.routingId().toString(), transport);
                assertNull(bye.failure(), "the peer left; nothing was wrong");
            }
        }
    }

    @Test
    void aDisconnectOrAFailedHandshakeSaysWhatTheCodecFound() throws Exception {
        try (ZmtpContext ctx = ZmtpContext.create(1)) {
            ZmtpSocket router = ctx.socket(SocketType.ROUTER);
            List<SocketEvent> events = new CopyOnWriteArrayList<>();
            router.monitor(events::add);
            String ep = get(router.bind("tcp://127.0.0.1:0"));

            try (RawPeer bad = RawPeer.handshaken(ep, null, "DEALER")) {
                eventually("handshake", () -> has(events, SocketEvent.Type.HANDSHAKE_SUCCEEDED));
                RoutingId id = first(events, SocketEvent.Type.HANDSHAKE_SUCCEEDED).routingId();
                bad.send(PeerBytes.create().raw(0x04, 0x02, 0x01, '1').toArray()); // a command named "1"
                eventually("disconnect", () -> has(events, SocketEvent.Type.DISCONNECTED));
                SocketEvent bye = first(events, SocketEvent.Type.DISCONNECTED);
                assertEquals(ConnectionFailed.Kind.PROTOCOL, bye.failure(), bye.toString());
                assertEquals(id, bye.routingId(), "the generated id of an anonymous peer");
            }

            try (RawPeer wrong = RawPeer.connect(ep, null)) {
                wrong.send(new byte[] {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A});
                eventually("handshake failure", () -> has(events, SocketEvent.Type.HANDSHAKE_FAILED));
                SocketEvent failed = first(events, SocketEvent.Type.HANDSHAKE_FAILED);
                assertEquals(ConnectionFailed.Kind.HANDSHAKE, failed.failure(), failed.toString());
                assertNull(failed.routingId());
            }
        }
    }
}
