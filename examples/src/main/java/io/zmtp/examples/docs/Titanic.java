package io.zmtp.examples.docs;

// tag::imports[]
import io.zmtp.patterns.majordomo.MajordomoBroker;
import io.zmtp.patterns.majordomo.MajordomoBrokerSettings;
import io.zmtp.patterns.majordomo.MajordomoHandler;
import io.zmtp.patterns.majordomo.MajordomoWorker;
import io.zmtp.patterns.titanic.TitanicClient;
import io.zmtp.patterns.titanic.TitanicServer;
import io.zmtp.patterns.titanic.TitanicSettings;
import io.zmtp.patterns.titanic.sqlite.SqliteTitanicStore;
import io.zmtp.patterns.titanic.sqlite.TitanicStoreSettings;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.Frames;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
// end::imports[]

/** docs/titanic.md: a Titanic server on its SQLite store, and a client's call through it. */
public final class Titanic {
    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory("titanic");
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            MajordomoBroker broker = new MajordomoBroker(ctx,
                    MajordomoBrokerSettings.builder().endpoints("tcp://127.0.0.1:0").build());
            broker.start().toCompletableFuture().join();
            MajordomoWorker echo = new MajordomoWorker(ctx, broker.endpoint(), "echo", MajordomoHandler.echo());
            echo.start();

            Frames reply = echoThroughTitanic(ctx, broker.endpoint(), dir);
            String text = reply.frameString(0);
            if (!"hello".equals(text)) {
                throw new IllegalStateException("got " + text);
            }
            echo.close();
            broker.close();
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }

    // tag::server-client[]
    static Frames echoThroughTitanic(ZmtpContext ctx, String brokerEndpoint, Path dir) {
        SqliteTitanicStore store = SqliteTitanicStore.open(TitanicStoreSettings.in(dir));   // titanic.db in dir
        TitanicServer titanic = new TitanicServer(ctx, store,
                TitanicSettings.builder().broker(brokerEndpoint).build());
        titanic.start().toCompletableFuture().join();          // titanic.request, .reply, .close

        TitanicClient client = new TitanicClient(ctx, brokerEndpoint);
        client.start().toCompletableFuture().join();
        Frames reply = client.call("echo", Duration.ofSeconds(60), "hello");        // submit, poll, close
        String uuid = client.submit("echo", "later");             // or step by step: stored once answered
        // client.poll(uuid): the reply once there (Optional); client.close(uuid) when done with it
        client.close();
        titanic.close();
        store.close();
        return reply;
    }
    // end::server-client[]

    private Titanic() {
    }
}
