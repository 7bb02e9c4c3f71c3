package io.zmtp.examples.docs;

// The README's example, whole: a newcomer copies it as QuickStart.java and runs it.
// tag::example[]
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.SocketType;

import java.time.Duration;
import java.util.List;

public class QuickStart {
    public static void main(String[] args) throws Exception {
        try (ZmtpContext ctx = ZmtpContext.create()) {               // event loops; closes every socket
            BlockingSocket rep = ctx.blocking(SocketType.REP);
            String endpoint = rep.bind("tcp://127.0.0.1:0");          // port 0: the bound port is returned
            BlockingSocket req = ctx.blocking(SocketType.REQ).connect(endpoint);

            req.send("hello");
            List<String> request = rep.receiveStrings(Duration.ofSeconds(5));
            rep.send("world");
            List<String> reply = req.receiveStrings(Duration.ofSeconds(5));
            System.out.println(request + " -> " + reply);              // [hello] -> [world]
        }
    }
}
// end::example[]
