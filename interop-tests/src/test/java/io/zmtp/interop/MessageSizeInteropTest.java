package io.zmtp.interop;

import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.SocketEvent;
import io.zmtp.socket.SocketOptions;
import io.zmtp.wire.ConnectionFailed;
import io.zmtp.wire.SocketType;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A message past our {@code maxMessageSize} from a libzmq publisher (libzmq has no limit by
 * default): the connection is closed and the message is lost, as before, but no longer without a
 * word to the application. A subscriber reading through {@link BlockingSocket} sees it in its
 * metrics ({@code tooLarge}) and in a DISCONNECTED event whose failure is
 * {@link ConnectionFailed.Kind#MESSAGE_TOO_LARGE}, naming the peer, the size and the limit; after
 * the reconnect the next messages arrive.
 */
class MessageSizeInteropTest extends LibzmqTestBase {

    @Test
    void aMessagePastTheLimitIsCountedAndReportedAndTheStreamGoesOn() throws Exception {
        String pub = "pub-size";
        zmq.socket(pub, "PUB");
        String endpoint = zmq.bind(pub, "tcp://127.0.0.1:*");
        BlockingSocket sub = ctx.blocking(SocketType.SUB, SocketOptions.builder().maxMessageSize(1024)
                .reconnectInterval(Duration.ofMillis(20)).reconnectIntervalMax(Duration.ofMillis(100)).build());
        List<SocketEvent> events = new CopyOnWriteArrayList<>();
        sub.socket().monitor(events::add);
        sub.subscribe("");
        sub.connect(endpoint);
        try {
            ByteMessages.eventually("the subscription reached the publisher", () -> {
                zmq.sendStrings(pub, "probe");
                return sub.receiveStrings(Duration.ofMillis(50)) != null;
            });
            zmq.send(pub, new byte[4096]); // past our 1 KiB
            ByteMessages.eventually("the loss reported", () -> sub.socket().metrics().tooLarge() == 1);
            SocketEvent lost = events.stream().filter(e -> e.failure() == ConnectionFailed.Kind.MESSAGE_TOO_LARGE)
                    .findFirst().orElse(null);
            assertNotNull(lost, "a DISCONNECTED event says why: " + events);
            assertEquals(SocketEvent.Type.DISCONNECTED, lost.type());
            assertNotNull(lost.peer(), "it names the peer");
            assertTrue(lost.reason().contains("4096") && lost.reason().contains("maxMessageSize 1024"),
                    "it names the size and the limit: " + lost.reason());
            assertTrue(sub.socket().metrics().toLine().contains("too-large=1"), sub.socket().metrics().toLine());
            ByteMessages.eventually("the stream goes on after the reconnect", () -> {
                zmq.sendStrings(pub, "after");
                List<String> m = sub.receiveStrings(Duration.ofMillis(50));
                return m != null && m.equals(List.of("after"));
            });
        } finally {
            sub.close(Duration.ZERO);
            zmq.close(pub);
        }
    }
}
