package io.zmtp.socket;

import io.zmtp.security.Authenticator;
import io.zmtp.security.PlainMechanism;
import io.zmtp.testing.RawPeer;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import io.zmtp.wire.ZmtpVersion;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.HexFormat;

import static io.zmtp.socket.SocketTesting.T;
import static io.zmtp.socket.SocketTesting.get;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The opt-in ZMTP 2.0 fallback at the byte level, against a hand-written 2.0 peer (as libzmq 3.2
 * and JeroMQ 0.3 write it: signature with the identity length in bytes 1-8, revision 1, socket
 * type, identity frame, then frames with MORE and LONG only). Interop with a real 2.0
 * implementation: interop-tests' Zmtp20FallbackInteropTest.
 */
class Zmtp20FallbackTest extends ContextTest {
    private static final HexFormat HEX = HexFormat.of();

    /** A 2.0 peer's whole greeting and its identity frame: signature, revision 1, type, empty identity. */
    private static byte[] greeting20(int typeCode) {
        return new byte[] {(byte) 0xFF, 0, 0, 0, 0, 0, 0, 0, 1, 0x7F, 1, (byte) typeCode, 0, 0};
    }

    private static Socket connect(String ep) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", RawPeer.port(ep)), (int) T.toMillis());
        s.setSoTimeout((int) T.toMillis());
        return s;
    }

    private static byte[] read(Socket s, int n) throws IOException {
        byte[] b = s.getInputStream().readNBytes(n);
        assertEquals(n, b.length, "bytes before the end of the stream");
        return b;
    }

    /** Reads until the connection closes (or resets); fails at the deadline. */
    private static void awaitClose(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        try {
            while (in.read() >= 0) {
                // what we sent before closing
            }
        } catch (java.net.SocketException reset) {
            // closed with a reset
        }
    }

    private ZmtpSocket echoRep(SocketOptions options) {
        ZmtpSocket rep = ctx.socket(SocketType.REP, options);
        rep.onMessage(m -> {
            String body = m.frameString(0);
            m.release();
            rep.trySend(ZmtpMessage.ofStrings("re:" + body));
        });
        return rep;
    }

    @Test
    void withTheFallbackOnAZmtp20RequesterIsAnsweredInZmtp20() throws Exception {
        ZmtpSocket rep = echoRep(SocketOptions.builder().zmtp20Fallback(true).build());
        SocketTesting.Events events = new SocketTesting.Events(rep);
        String ep = get(rep.bind("tcp://127.0.0.1:0"));
        try (Socket peer = connect(ep)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes(greeting20(3));                                   // REQ
            out.writeBytes(new byte[] {1, 0, 0, 5, 'h', 'e', 'l', 'l', 'o'}); // [""]["hello"]
            peer.getOutputStream().write(out.toByteArray());
            // Our signature and revision 3 (sent before we knew), then REP's type code 4, then an
            // empty identity frame, then the reply with REQ's delimiter.
            assertEquals("ff00000000000000007f03", HEX.formatHex(read(peer, 11)));
            assertEquals("04", HEX.formatHex(read(peer, 1)));
            assertEquals("0000", HEX.formatHex(read(peer, 2)));
            assertEquals("0100" + "0008" + HEX.formatHex("re:hello".getBytes()), HEX.formatHex(read(peer, 12)));
        }
        SocketEvent ok = events.first(SocketEvent.Type.HANDSHAKE_SUCCEEDED);
        assertTrue(ok != null, "the 2.0 peer became a peer");
    }

    @Test
    void aZmtp20PeerIsShownAsSuchWithItsIdentity() throws Exception {
        ZmtpSocket router = ctx.socket(SocketType.ROUTER, SocketOptions.builder().zmtp20Fallback(true).build());
        SocketTesting.Inbox inbox = new SocketTesting.Inbox(router);
        String ep = get(router.bind("tcp://127.0.0.1:0"));
        try (Socket peer = connect(ep)) {
            // A DEALER (code 5) with identity "old", sending a long frame (LONG flag, 8-byte size).
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes(new byte[] {(byte) 0xFF, 0, 0, 0, 0, 0, 0, 0, 4, 0x7F, 1, 5, 0, 3, 'o', 'l', 'd'});
            byte[] big = new byte[300];
            out.writeBytes(new byte[] {2, 0, 0, 0, 0, 0, 0, 1, 44});
            out.writeBytes(big);
            peer.getOutputStream().write(out.toByteArray());
            assertEquals(java.util.List.of("old", new String(big)), inbox.next());
            Pipe p = SocketTesting.onLoop(router, () -> router.pipes().get(0));
            assertEquals(ZmtpVersion.V2_0, p.version());
            assertEquals(SocketType.DEALER, p.peerType());
            assertArrayEquals("old".getBytes(), p.peerMetadata().identity());
        }
    }

    @Test
    void withTheFallbackOffAZmtp20PeerIsRefusedWithAClearReason() throws Exception {
        ZmtpSocket rep = echoRep(SocketOptions.builder().build());
        SocketTesting.Events events = new SocketTesting.Events(rep);
        String ep = get(rep.bind("tcp://127.0.0.1:0"));
        try (Socket peer = connect(ep)) {
            peer.getOutputStream().write(greeting20(3));
            assertEquals("ff00000000000000007f03", HEX.formatHex(read(peer, 11)));
            awaitClose(peer);
        }
        events.await(SocketEvent.Type.HANDSHAKE_FAILED);
        String reason = events.first(SocketEvent.Type.HANDSHAKE_FAILED).reason();
        assertTrue(reason.contains("ZMTP 2.0") && reason.contains("zmtp20Fallback"), reason);
    }

    @Test
    void withPlainSecurityTheFallbackRefusesTheDowngrade() throws Exception {
        ZmtpSocket rep = echoRep(SocketOptions.builder().zmtp20Fallback(true)
                .mechanism(PlainMechanism.server(Authenticator.allowAll())).build());
        SocketTesting.Events events = new SocketTesting.Events(rep);
        String ep = get(rep.bind("tcp://127.0.0.1:0"));
        try (Socket peer = connect(ep)) {
            peer.getOutputStream().write(greeting20(3));
            read(peer, 11);
            awaitClose(peer);
        }
        events.await(SocketEvent.Type.HANDSHAKE_FAILED);
        String reason = events.first(SocketEvent.Type.HANDSHAKE_FAILED).reason();
        assertTrue(reason.contains("PLAIN") && reason.contains("no security"), reason);
    }

    @Test
    void anIncompatibleZmtp20TypeIsRefused() throws Exception {
        ZmtpSocket rep = echoRep(SocketOptions.builder().zmtp20Fallback(true).build());
        SocketTesting.Events events = new SocketTesting.Events(rep);
        String ep = get(rep.bind("tcp://127.0.0.1:0"));
        try (Socket peer = connect(ep)) {
            peer.getOutputStream().write(greeting20(1));   // PUB
            awaitClose(peer);
        }
        events.await(SocketEvent.Type.HANDSHAKE_FAILED);
        String reason = events.first(SocketEvent.Type.HANDSHAKE_FAILED).reason();
        assertTrue(reason.contains("REP and PUB"), reason);
    }

    @Test
    void aCommandFlagFromAZmtp20PeerClosesItsConnection() throws Exception {
        ZmtpSocket rep = echoRep(SocketOptions.builder().zmtp20Fallback(true).build());
        SocketTesting.Events events = new SocketTesting.Events(rep);
        String ep = get(rep.bind("tcp://127.0.0.1:0"));
        try (Socket peer = connect(ep)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes(greeting20(3));
            out.writeBytes(new byte[] {4, 5, 4, 'P', 'I', 'N', 'G'});   // a 3.1 command: not 2.0
            peer.getOutputStream().write(out.toByteArray());
            awaitClose(peer);
        }
        events.await(SocketEvent.Type.DISCONNECTED);
        String reason = events.first(SocketEvent.Type.DISCONNECTED).reason();
        assertTrue(reason.contains("ZMTP 2.0 frame with a reserved flag bit"), reason);
    }

    @Test
    void zmtp20IsNeverAnnounced() {
        assertThrows(IllegalArgumentException.class, () -> SocketOptions.builder().version(ZmtpVersion.V2_0));
    }
}
