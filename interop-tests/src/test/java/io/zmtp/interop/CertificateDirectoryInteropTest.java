package io.zmtp.interop;

import io.zmtp.security.AddressRules;
import io.zmtp.security.CurveAllowList;
import io.zmtp.security.CurveCertificate;
import io.zmtp.security.CurveKeyPair;
import io.zmtp.security.CurveMechanism;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A zmq.auth set-up moved over (issue #47, docs/security.md "From pyzmq's zmq.auth"): pyzmq writes
 * the certificates with zmq.auth.create_certificates, our CURVE server lists the clients of
 * public_keys/*.key with {@link CurveCertificate#readDirectory(Path, String)} and takes its pair from
 * private_keys/server.key_secret; a pyzmq client with a listed certificate is served, one with
 * another certificate is refused, and libzmq reports that as EVENT_HANDSHAKE_FAILED_AUTH (CURVE's
 * ERROR is read by libzmq; PLAIN's is not, see SecurityInteropTest).
 */
class CertificateDirectoryInteropTest {
    @TempDir
    Path keys;

    @Test
    void aPyzmqCertificateDirectoryIsServedAsZmqAuthServesIt() throws Exception {
        try (PeerScript make = PeerScript.start("zmq_auth_certs.py", "make", keys.toString())) {
            make.awaitLine("made");
            assertEquals(0, make.awaitExit());
        }
        List<CurveCertificate> listed = CurveCertificate.readDirectory(keys.resolve("public_keys"), "*.key");
        assertEquals(2, listed.size(), "server.key and client.key: " + listed);
        CurveKeyPair serverKeys = CurveCertificate.read(keys.resolve("private_keys/server.key_secret")).keyPair();

        try (ZmtpContext ctx = ZmtpContext.create(1)) {
            ZmtpSocket server = ctx.socket(SocketType.REP, SocketOptions.builder()
                    .mechanism(CurveMechanism.server(serverKeys,
                            AddressRules.allow("127.0.0.1").then(CurveAllowList.ofCertificates(listed))))
                    .build());
            server.onMessage(m -> server.send(m));                      // echo
            String endpoint = server.bind("tcp://127.0.0.1:0").get(10, TimeUnit.SECONDS);
            try (PeerScript clients = PeerScript.start("zmq_auth_certs.py", "connect", keys.toString(), endpoint)) {
                assertEquals(List.of("event HANDSHAKE_SUCCEEDED", "event HANDSHAKE_FAILED_AUTH"),
                        clients.awaitCount("event ", 2), "the listed client, then the stranger: " + clients.lines());
                assertEquals("reply hello", clients.awaitLine("reply "));
                assertEquals(0, clients.awaitExit());
            }
        }
    }
}
