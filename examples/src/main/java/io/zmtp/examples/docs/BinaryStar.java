package io.zmtp.examples.docs;

// tag::imports[]
import io.zmtp.patterns.binarystar.BinaryStarClient;
import io.zmtp.patterns.binarystar.BinaryStarServer;
import io.zmtp.patterns.binarystar.BinaryStarState;
import io.zmtp.socket.ZmtpContext;

import java.time.Duration;
import java.util.List;

// in scope: ZmtpContext ctx
// end::imports[]

/** docs/binary-star.md: a primary-backup pair and a client that fails over between them. */
public final class BinaryStar {
    public static void main(String[] args) throws Exception {
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            // tag::pair[]
            // One server per host in practice (Settings.primary() and .backup() default to the guide's
            // ports: clients on 5001 and 5002, state on 5003 and 5004); here both in one process.
            Duration heartbeat = Duration.ofMillis(100);            // the guide's is 1 s
            BinaryStarServer primary = new BinaryStarServer(ctx, BinaryStarServer.Settings.primary()
                    .frontend("tcp://127.0.0.1:0").stateHeartbeat(heartbeat)
                    .statePublisher("inproc://primary-state").statePeer("inproc://backup-state").build(),
                    BinaryStarServer.FrontendHandler.ECHO, event -> System.out.println("primary: " + event));
            BinaryStarServer backup = new BinaryStarServer(ctx, BinaryStarServer.Settings.backup()
                    .frontend("tcp://127.0.0.1:0").stateHeartbeat(heartbeat)
                    .statePublisher("inproc://backup-state").statePeer("inproc://primary-state").build(),
                    BinaryStarServer.FrontendHandler.ECHO, event -> System.out.println("backup: " + event));
            primary.start().toCompletableFuture().join();
            backup.start().toCompletableFuture().join();

            BinaryStarClient client = new BinaryStarClient(ctx, BinaryStarClient.Settings.builder()
                    .primary(primary.frontendEndpoint()).backup(backup.frontendEndpoint())
                    .timeout(Duration.ofMillis(500)).settle(Duration.ofMillis(300)).build(), null);
            client.start().toCompletableFuture().join();
            List<String> first = client.request("one");              // served by the primary, once it is active
            primary.close();                                         // the primary dies
            List<String> second = client.request("two");             // times out, settles, the backup serves
            // end::pair[]
            check(List.of("one"), first);
            check(List.of("two"), second);
            if (backup.state() != BinaryStarState.ACTIVE) {
                throw new IllegalStateException("backup " + backup.state());
            }
            System.out.println(client.stats());
            client.close();
            backup.close();
        }
    }

    static void check(List<String> expected, List<String> got) {
        if (!expected.equals(got)) {
            throw new IllegalStateException("expected " + expected + ", got " + got);
        }
    }

    private BinaryStar() {
    }
}
