package io.zmtp.examples.docs;

// tag::imports[]
import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.DishSocket;
import io.zmtp.socket.RadioSocket;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

// in scope: ZmtpContext ctx
// end::imports[]

/** docs/radio-dish.md: groups over tcp://, and datagrams over udp://. */
public final class RadioDish {
    public static void main(String[] args) throws Exception {
        try (ZmtpContext ctx = ZmtpContext.create(1)) {
            overTcp(ctx);
            overUdp(ctx);
        }
    }

    private static void overTcp(ZmtpContext ctx) throws Exception {
        // tag::tcp[]
        BlockingQueue<String> received = new LinkedBlockingQueue<>();
        RadioSocket radio = ctx.radio(SocketOptions.DEFAULTS);
        String endpoint = radio.bind("tcp://127.0.0.1:0").get();

        DishSocket dish = ctx.dish(SocketOptions.DEFAULTS);
        dish.onMessage(m -> {
            received.add(m.group() + ": " + m.frameString(0));          // "weather: sunny"
            m.release();
        });
        dish.join("weather").get();                                     // exact names, 1-255 bytes
        dish.connect(endpoint).get();

        radio.send(ZmtpMessage.of("sunny".getBytes()).group("weather")); // to the DISHes that joined
        radio.send(ZmtpMessage.of("1-0".getBytes()).group("sports"));    // nobody joined: dropped
        // end::tcp[]
        // The JOIN travels after the connect: send until one lands (a RADIO drops what no DISH joined).
        String first = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (first == null && System.nanoTime() < deadline) {
            first = received.poll(50, TimeUnit.MILLISECONDS);
            if (first == null) {
                radio.send(ZmtpMessage.of("sunny".getBytes()).group("weather"));
            }
        }
        if (!"weather: sunny".equals(first)) {
            throw new IllegalStateException("the DISH got " + first);
        }
        radio.close(Duration.ZERO).get();
        dish.close(Duration.ZERO).get();
    }

    private static void overUdp(ZmtpContext ctx) {
        // tag::udp[]
        BlockingSocket dish = ctx.blocking(SocketType.DISH);
        String endpoint = dish.bind("udp://127.0.0.1:0");               // or udp://eth0;239.1.1.1:5555
        dish.join("weather");

        BlockingSocket radio = ctx.blocking(SocketType.RADIO);
        radio.connect(endpoint);                                        // one datagram per message
        radio.sendToGroup("weather", "rain".getBytes());
        String body = dish.recvStr(Duration.ofSeconds(5));              // "rain"
        String group = dish.receivedGroup();                            // "weather"
        // end::udp[]
        if (!"rain".equals(body) || !"weather".equals(group)) {
            throw new IllegalStateException("the DISH got " + group + ": " + body);
        }
        radio.close(Duration.ZERO);
        dish.close(Duration.ZERO);
    }

    private RadioDish() {
    }
}
