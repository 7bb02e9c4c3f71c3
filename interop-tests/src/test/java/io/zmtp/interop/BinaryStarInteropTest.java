package io.zmtp.interop;

import io.zmtp.patterns.kit.Futures;
import io.zmtp.patterns.binarystar.BinaryStarClient;
import io.zmtp.patterns.binarystar.BinaryStarServer;
import io.zmtp.patterns.binarystar.BinaryStarState;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Binary Star against libzmq peers (bstar_server.py, bstar_client.py, written from the
 * protocol's rules): our pair with their client, mixed pairs, their pair with our client; in each,
 * the primary dies under a running client and the backup takes over.
 */
class BinaryStarInteropTest {
    static final Duration HB = Duration.ofMillis(100);
    static final Duration WAIT = Duration.ofSeconds(15);

    ZmtpContext ctx;
    final List<PeerScript> scripts = new ArrayList<>();
    final List<AutoCloseable> ours = new ArrayList<>();
    int fp;
    int fb;
    int sp;
    int sb;

    @BeforeEach
    void start() throws IOException {
        ctx = ZmtpContext.create(2);
        fp = freePort();
        fb = freePort();
        sp = freePort();
        sb = freePort();
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : ours) {
            c.close();
        }
        for (PeerScript p : scripts) {
            p.close();
        }
        ctx.close(Duration.ofSeconds(5));
    }

    static int freePort() throws IOException {
        return io.zmtp.testing.FreePorts.next();
    }

    static String ep(int port) {
        return "tcp://127.0.0.1:" + port;
    }

    BinaryStarServer ourServer(boolean primary) {
        BinaryStarServer.Settings.Builder b = primary
                ? BinaryStarServer.Settings.primary().frontend(ep(fp)).statePublisher(ep(sp)).statePeer(ep(sb))
                : BinaryStarServer.Settings.backup().frontend(ep(fb)).statePublisher(ep(sb)).statePeer(ep(sp));
        BinaryStarServer s = new BinaryStarServer(ctx, b.stateHeartbeat(HB).build(), null);
        ours.add(s);
        Futures.await(s.start(), WAIT);
        return s;
    }

    PeerScript theirServer(boolean primary) {
        PeerScript p = primary
                ? PeerScript.start("bstar_server.py", "primary", ep(fp), ep(sp), ep(sb), Long.toString(HB.toMillis()))
                : PeerScript.start("bstar_server.py", "backup", ep(fb), ep(sb), ep(sp), Long.toString(HB.toMillis()));
        scripts.add(p);
        p.awaitLine("ready");
        return p;
    }

    PeerScript theirClient(int requests) {
        PeerScript p = PeerScript.start("bstar_client.py", ep(fp), ep(fb), Integer.toString(requests), "500", "300", "20");
        scripts.add(p);
        return p;
    }

    BinaryStarClient ourClient() {
        BinaryStarClient c = new BinaryStarClient(ctx, BinaryStarClient.Settings.builder().primary(ep(fp))
                .backup(ep(fb)).timeout(Duration.ofMillis(500)).settle(Duration.ofMillis(300))
                .socketOptions(SocketOptions.builder().reconnectInterval(Duration.ofMillis(20)).build()).build(), null);
        ours.add(c);
        Futures.await(c.start(), WAIT);
        return c;
    }

    static void await(String what, java.util.function.BooleanSupplier condition) {
        Await.until(WAIT, () -> what, condition);
    }

    /** Runs {@code n} requests through our client, calling {@code kill} after the tenth. */
    static void requests(BinaryStarClient client, int n, Runnable kill) {
        for (int i = 1; i <= n; i++) {
            assertEquals(List.of(Integer.toString(i)), client.request(Integer.toString(i)));
            if (i == 10) {
                kill.run();
            }
        }
    }

    @Test
    void ourPairWithTheirClient() {
        BinaryStarServer primary = ourServer(true);
        BinaryStarServer backup = ourServer(false);
        await("pair up", () -> primary.state() == BinaryStarState.ACTIVE && backup.state() == BinaryStarState.PASSIVE);
        PeerScript client = theirClient(30);
        client.awaitLine("reply 10");
        primary.close();
        assertEquals(0, client.awaitExit(30_000), () -> client.lines().toString());
        assertTrue(client.count(l -> l.startsWith("failover " + ep(fb))) >= 1, () -> client.lines().toString());
        assertEquals(30, client.count(l -> l.startsWith("reply ")));
        assertEquals(BinaryStarState.ACTIVE, backup.state());
    }

    @Test
    void ourPrimaryTheirBackupWithOurClient() {
        BinaryStarServer primary = ourServer(true);
        PeerScript backup = theirServer(false);
        backup.awaitLine("state PASSIVE");
        await("primary active", () -> primary.state() == BinaryStarState.ACTIVE);
        BinaryStarClient client = ourClient();
        requests(client, 30, primary::close);
        backup.awaitLine("state ACTIVE");
        assertEquals(1, client.stats().failedOver());
        assertEquals(0, backup.count(l -> l.startsWith("fatal")));
    }

    @Test
    void theirPrimaryOurBackupWithTheirClient() {
        PeerScript primary = theirServer(true);
        BinaryStarServer backup = ourServer(false);
        primary.awaitLine("state ACTIVE");
        await("backup passive", () -> backup.state() == BinaryStarState.PASSIVE);
        PeerScript client = theirClient(30);
        client.awaitLine("reply 10");
        primary.kill();
        assertEquals(0, client.awaitExit(30_000), () -> client.lines().toString());
        assertEquals(30, client.count(l -> l.startsWith("reply ")));
        assertEquals(BinaryStarState.ACTIVE, backup.state());
    }

    @Test
    void theirPairWithOurClient() {
        PeerScript primary = theirServer(true);
        PeerScript backup = theirServer(false);
        primary.awaitLine("state ACTIVE");
        backup.awaitLine("state PASSIVE");
        BinaryStarClient client = ourClient();
        requests(client, 30, primary::kill);
        backup.awaitLine("state ACTIVE");
        assertEquals(1, client.stats().failedOver());
        assertEquals(30, client.stats().replies());
    }

    @Test
    void ourRestartedPrimaryComesBackPassiveBesideTheirActiveBackup() {
        PeerScript backup = theirServer(false);
        BinaryStarServer primary = ourServer(true);
        backup.awaitLine("state PASSIVE");
        primary.close();
        PeerScript client = theirClient(15);
        assertEquals(0, client.awaitExit(30_000), () -> client.lines().toString());
        backup.awaitLine("state ACTIVE");
        BinaryStarServer restarted = ourServer(true);
        await("restarted primary passive", () -> restarted.state() == BinaryStarState.PASSIVE);
        assertEquals(0, backup.count(l -> l.startsWith("fatal")));
    }
}
