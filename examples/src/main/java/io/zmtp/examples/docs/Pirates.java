package io.zmtp.examples.docs;

// tag::imports[]
import io.zmtp.patterns.kit.Heartbeat;
import io.zmtp.patterns.kit.NoReplyException;
import io.zmtp.patterns.kit.RequestHandler;
import io.zmtp.patterns.lazypirate.LazyPirateClient;
import io.zmtp.patterns.lazypirate.LazyPirateServer;
import io.zmtp.patterns.paranoidpirate.ParanoidPirateQueue;
import io.zmtp.patterns.paranoidpirate.ParanoidPirateWorker;
import io.zmtp.patterns.simplepirate.SimplePirateQueue;
import io.zmtp.patterns.simplepirate.SimplePirateWorker;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.ZmtpMessage;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

// in scope: ZmtpContext ctx
// end::imports[]

/** docs/pirates.md: Lazy, Simple and Paranoid Pirate as library components. */
public final class Pirates {
    public static void main(String[] args) throws Exception {
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            lazy(ctx);
            simple(ctx);
            paranoid(ctx);
        }
    }

    static void lazy(ZmtpContext ctx) throws Exception {
        // tag::lazy[]
        LazyPirateServer server = new LazyPirateServer(ctx, LazyPirateServer.settings()
                .endpoint("tcp://127.0.0.1:0").handler(RequestHandler.echo()).build(), null);
        server.start().toCompletableFuture().join();                 // bound: server.endpoint() is the port
        try (LazyPirateClient client = new LazyPirateClient(ctx, LazyPirateClient.Settings.builder()
                .endpoint(server.endpoint()).timeout(Duration.ofMillis(2500)).retries(3).build())) {
            client.start().toCompletableFuture().join();
            List<String> reply = client.request("hello");            // blocks; a new socket per try
            // NoReplyException when the last try times out
        }
        // end::lazy[]
        server.close();
    }

    static void simple(ZmtpContext ctx) throws Exception {
        // tag::simple[]
        SimplePirateQueue queue = new SimplePirateQueue(ctx, SimplePirateQueue.Settings.builder()
                .frontend("tcp://127.0.0.1:0").backend("tcp://127.0.0.1:0").build(), null);
        queue.start().toCompletableFuture().join();
        SimplePirateWorker worker = new SimplePirateWorker(ctx, SimplePirateWorker.settings()
                .endpoint(queue.backendEndpoint()).handler(RequestHandler.echo()).build(), null);
        worker.start().toCompletableFuture().join();                 // says READY to the queue
        // clients: LazyPirateClient to queue.frontendEndpoint()
        // end::simple[]
        check(List.of("through the queue"), ask(ctx, queue.frontendEndpoint(), "through the queue"));
        worker.close();
        queue.close();
    }

    static void paranoid(ZmtpContext ctx) throws Exception {
        // tag::paranoid[]
        Heartbeat heartbeat = Heartbeat.of(Duration.ofSeconds(1), 3);   // the guide's: 1 s, 3 missed
        ParanoidPirateQueue queue = new ParanoidPirateQueue(ctx, ParanoidPirateQueue.Settings.builder()
                .frontend("tcp://127.0.0.1:0").backend("tcp://127.0.0.1:0").heartbeat(heartbeat).build(),
                event -> System.out.println("queue: " + event));
        queue.start().toCompletableFuture().join();
        RequestHandler upperCase = request -> {                           // on the worker's loop: no blocking
            String text = request.frameString(0);
            request.release();
            return CompletableFuture.completedFuture(ZmtpMessage.ofStrings(text.toUpperCase()));
        };
        ParanoidPirateWorker worker = new ParanoidPirateWorker(ctx, ParanoidPirateWorker.Settings.builder()
                .endpoint(queue.backendEndpoint()).handler(upperCase).heartbeat(heartbeat)
                .reconnectInterval(Duration.ofSeconds(1)).reconnectIntervalMax(Duration.ofSeconds(32)).build(),
                event -> System.out.println("worker: " + event));
        worker.start().toCompletableFuture().join();
        // end::paranoid[]
        check(List.of("LOUDER"), ask(ctx, queue.frontendEndpoint(), "louder"));
        worker.close();
        queue.close();
    }

    static List<String> ask(ZmtpContext ctx, String endpoint, String body) {
        try (LazyPirateClient client = new LazyPirateClient(ctx,
                LazyPirateClient.Settings.builder().endpoint(endpoint).build())) {
            client.start().toCompletableFuture().join();
            return client.request(body);
        } catch (NoReplyException e) {
            throw new IllegalStateException(e);
        }
    }

    static void check(List<String> expected, List<String> got) {
        if (!expected.equals(got)) {
            throw new IllegalStateException("expected " + expected + ", got " + got);
        }
    }

    private Pirates() {
    }
}
