package io.zmtp.patterns.majordomo;

import io.zmtp.socket.ZmtpContext;
import io.zmtp.testing.TestDnsServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.zmtp.patterns.majordomo.MdpTesting.eventually;
import static io.zmtp.patterns.majordomo.MdpTesting.started;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A Majordomo worker and client that reach their broker by a host name follow the name when the
 * broker moves to another address (#46): a name server on a loopback port (TTL 1 s) points
 * {@code broker.zmtp.test} at a broker on 127.0.0.1, then at one on 127.0.0.2 while the first
 * closes; the same worker and client are served by the second. In one JVM; the time from the
 * close to the first reply through the new broker is printed.
 */
class MajordomoByNameTest {
    final TestDnsServer dns = new TestDnsServer();
    final List<AutoCloseable> opened = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        dns.close();
    }

    <C extends AutoCloseable> C open(C c) {
        opened.add(c);
        return c;
    }

    ZmtpContext context() {
        ZmtpContext c = ZmtpContext.create(1);
        opened.add(() -> c.close(Duration.ofSeconds(5)));
        return c;
    }

    @Test
    void aWorkerAndAClientFollowTheBrokersName() {
        ZmtpContext oldHost = ZmtpContext.create(1);
        MajordomoBroker old = started(new MajordomoBroker(oldHost,
                MajordomoBrokerSettings.builder().endpoints("tcp://127.0.0.1:0").build()));
        int port = Integer.parseInt(old.endpoint().substring(old.endpoint().lastIndexOf(':') + 1));
        MajordomoBroker moved = open(started(new MajordomoBroker(context(),
                MajordomoBrokerSettings.builder().endpoints("tcp://127.0.0.2:" + port).build())));
        dns.set("broker.zmtp.test", "127.0.0.1");

        ZmtpContext ctx = context().nameResolution(List.of(dns.address()), Duration.ofSeconds(1));
        String byName = "tcp://broker.zmtp.test:" + port;
        MajordomoWorker worker = open(new MajordomoWorker(ctx, byName, "echo", MajordomoHandler.echo(),
                MajordomoWorkerSettings.builder().build()));
        worker.start();
        eventually("the worker registered with the first broker", () -> old.workerCount("echo") == 1);
        MajordomoClient client = open(started(new MajordomoClient(ctx, byName,
                MajordomoClientSettings.builder().timeout(Duration.ofSeconds(2)).retries(5).build())));
        assertEquals(List.of("one"), client.request("echo", "one").bodyStrings());

        dns.set("broker.zmtp.test", "127.0.0.2");
        old.close();
        oldHost.close(Duration.ofSeconds(5));
        long closed = System.nanoTime();
        eventually("the same worker registered with the broker the name now points at",
                () -> moved.workerCount("echo") == 1);
        long registered = System.nanoTime();
        assertEquals(List.of("two"), client.request("echo", "two").bodyStrings());
        long answered = System.nanoTime();
        System.out.printf("Majordomo by name: the worker registered with the moved broker %d ms after the old one "
                + "closed; the client's next request answered %d ms after the close%n",
                TimeUnit.NANOSECONDS.toMillis(registered - closed), TimeUnit.NANOSECONDS.toMillis(answered - closed));
    }
}
