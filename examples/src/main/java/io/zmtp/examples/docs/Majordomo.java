package io.zmtp.examples.docs;

// tag::imports[]
import io.zmtp.patterns.binarystar.BinaryStarState;
import io.zmtp.patterns.majordomo.HighAvailabilityBroker;
import io.zmtp.patterns.majordomo.MajordomoAsyncClient;
import io.zmtp.patterns.majordomo.MajordomoBroker;
import io.zmtp.patterns.majordomo.MajordomoBrokerSettings;
import io.zmtp.patterns.majordomo.MajordomoClient;
import io.zmtp.patterns.majordomo.MajordomoClientSettings;
import io.zmtp.patterns.majordomo.MajordomoHandler;
import io.zmtp.patterns.majordomo.MajordomoReply;
import io.zmtp.patterns.majordomo.MajordomoWorker;
import io.zmtp.patterns.majordomo.MajordomoWorkerSettings;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.Frames;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

// in scope: ZmtpContext ctx
// end::imports[]

/** docs/majordomo.md: broker, worker and client; MMI; the highly available pair. */
public final class Majordomo {
    public static void main(String[] args) throws Exception {
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            roundTrip(ctx);
            highlyAvailable(ctx);
        }
    }

    // tag::handler[]
    static MajordomoWorker shout(ZmtpContext ctx, String brokerEndpoint) {
        MajordomoWorker shout = new MajordomoWorker(ctx, brokerEndpoint, "shout",
                MajordomoHandler.replying(frames -> Frames.ofStrings(        // frames in, frames out
                        frames.frameString(0).toUpperCase())));
        shout.start();
        return shout;
    }
    // end::handler[]

    // tag::mmi[]
    static String serviceCode(MajordomoClient client, String service) throws Exception {
        MajordomoReply answer = client.request("mmi.service", service);   // 8/MMI
        return answer.bodyStrings().get(0);                           // "200": workers; "404": none
    }
    // end::mmi[]

    static void roundTrip(ZmtpContext ctx) throws Exception {
        // tag::round-trip[]
        MajordomoBroker broker = new MajordomoBroker(ctx,
                MajordomoBrokerSettings.builder().endpoints("tcp://127.0.0.1:0").build());
        broker.start().toCompletableFuture().join();                // bound
        MajordomoWorker worker = new MajordomoWorker(ctx, broker.endpoint(), "echo", MajordomoHandler.echo());
        worker.start();
        try (MajordomoClient client = new MajordomoClient(ctx, broker.endpoint())) {
            client.start();
            MajordomoReply reply = client.request("echo", "hello");  // blocks; retries on a new socket
        }
        // end::round-trip[]

        MajordomoWorker shout = shout(ctx, broker.endpoint());

        try (MajordomoClient client = new MajordomoClient(ctx, broker.endpoint())) {
            client.start();
            check(List.of("HELLO"), client.request("shout", "hello").bodyStrings());
            check(List.of("200"), List.of(serviceCode(client, "echo")));
            check(List.of("404"), List.of(serviceCode(client, "nobody")));
        }
        shout.close();
        worker.close();
        broker.close();
    }

    static void highlyAvailable(ZmtpContext ctx) throws Exception {
        // tag::ha-pair[]
        // Usually one broker per host: HighAvailabilityBroker.Settings.primary() and .backup() default to
        // MDP on tcp://*:5555 and tcp://*:5556, state on 5003 and 5004. Here both halves in one process:
        HighAvailabilityBroker primary = new HighAvailabilityBroker(ctx, HighAvailabilityBroker.Settings.primary()
                .broker(MajordomoBrokerSettings.builder().endpoints("tcp://127.0.0.1:0").build())
                .statePublisher("inproc://primary-state").statePeer("inproc://backup-state").build());
        HighAvailabilityBroker backup = new HighAvailabilityBroker(ctx, HighAvailabilityBroker.Settings.backup()
                .broker(MajordomoBrokerSettings.builder().endpoints("tcp://127.0.0.1:0").build())
                .statePublisher("inproc://backup-state").statePeer("inproc://primary-state").build());
        primary.start().toCompletableFuture().join();
        backup.start().toCompletableFuture().join();
        while (primary.state() != BinaryStarState.ACTIVE             // the pair settles within a state heartbeat
                || backup.state() != BinaryStarState.PASSIVE) {      // (a backup serves only once it saw the primary)
            Thread.sleep(10);
        }

        List<String> pair = List.of(primary.endpoint(), backup.endpoint());   // clients and workers take both
        MajordomoWorker w = new MajordomoWorker(ctx, pair, "echo", MajordomoHandler.echo(), MajordomoWorkerSettings.DEFAULTS);
        w.start();
        MajordomoAsyncClient c = new MajordomoAsyncClient(ctx, pair, MajordomoClientSettings.builder()
                .timeout(Duration.ofSeconds(1)).retries(6).failoverSettle(Duration.ofSeconds(2)).build());
        c.start();
        MajordomoReply reply = c.request("echo", "hello").get();     // a CompletableFuture
        primary.close();                                             // the primary goes away
        MajordomoReply again = c.request("echo", "again").get();     // after timeout and settle: the backup
        // end::ha-pair[]
        check(List.of("hello"), reply.bodyStrings());
        check(List.of("again"), again.bodyStrings());
        if (backup.state() != BinaryStarState.ACTIVE) {
            throw new IllegalStateException("backup " + backup.state());
        }
        c.close();
        w.close();
        backup.close();
    }

    static void check(List<String> expected, List<String> got) {
        if (!expected.equals(got)) {
            throw new IllegalStateException("expected " + expected + ", got " + got);
        }
    }

    private Majordomo() {
    }
}
