package io.zmtp.examples.docs;

// tag::imports[]
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.SocketType;

import java.time.Duration;
// end::imports[]

/** docs/performance.md: the settings that shape latency, and warming a process up. */
public final class Performance {
    public static void main(String[] args) throws Exception {
        // tag::context[]
        ZmtpContext quiet = ZmtpContext.create(2, Duration.ZERO);   // 2 event loops that never spin before blocking
        boolean warm = quiet.warmUp(Duration.ofSeconds(5));        // one message over loopback: classes loaded,
                                                                   // buffer pools made, before the first request
        // end::context[]
        try (quiet) {
            if (!warm) {
                throw new IllegalStateException("no warm-up");
            }
            BlockingSocket pull = quiet.blocking(SocketType.PULL);
            BlockingSocket push = quiet.blocking(SocketType.PUSH).connect(pull.bind("tcp://127.0.0.1:0"));
            push.send("x");
            if (pull.receiveStrings(Duration.ofSeconds(5)) == null) {
                throw new IllegalStateException("nothing received");
            }
        }
    }

    private Performance() {
    }
}
