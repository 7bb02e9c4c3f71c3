package io.zmtp.examples.docs;

// tag::imports[]
import io.zmtp.patterns.freelance.FreelanceClient;
import io.zmtp.patterns.freelance.FreelanceServer;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.ZmtpMessage;

import java.time.Duration;
import java.util.List;

// in scope: ZmtpContext ctx
// end::imports[]

/** docs/freelance.md: model 3, the guide's flcliapi agent, against two servers. */
public final class Freelance {
    public static void main(String[] args) throws Exception {
        try (ZmtpContext ctx = ZmtpContext.create(2)) {
            // tag::model3[]
            // A model 3 server is known by its endpoint (its identity): over tcp, a fixed port such as
            // tcp://*:5555 (known as tcp://localhost:5555); here two servers inproc, in one process.
            FreelanceServer one = new FreelanceServer(ctx, FreelanceServer.Settings.builder()
                    .model(3).endpoint("inproc://server-1").build());
            FreelanceServer two = new FreelanceServer(ctx, FreelanceServer.Settings.builder()
                    .model(3).endpoint("inproc://server-2").build());
            one.start().toCompletableFuture().join();
            two.start().toCompletableFuture().join();

            FreelanceClient client = new FreelanceClient(ctx, FreelanceClient.Settings.builder()
                    .pingInterval(Duration.ofSeconds(1)).serverTtl(Duration.ofSeconds(3))
                    .globalTimeout(Duration.ofSeconds(5)).build());  // the defaults: timeout > time to live
            client.start().toCompletableFuture().join();
            client.connect("inproc://server-1");                     // any time, from any thread
            client.connect("inproc://server-2");
            ZmtpMessage reply = client.request(ZmtpMessage.ofStrings("random name"));   // blocks; ["OK"]
            String answer = reply.frameString(0);
            reply.release();
            client.requestAsync(ZmtpMessage.ofStrings("another"))   // or a future, completed on its event loop
                    .thenAccept(ZmtpMessage::release);
            // end::model3[]
            if (!"OK".equals(answer)) {
                throw new IllegalStateException("got " + answer);
            }
            ZmtpMessage last = client.request(ZmtpMessage.ofStrings("last"));
            last.release();
            client.close();
            two.close();
            one.close();
        }
    }

    private Freelance() {
    }
}
