package io.zmtp.benchmarks.manypeers;

import org.zeromq.SocketType;
import org.zeromq.ZMQ;

/**
 * JeroMQ's publisher of the many-peers fan-out benchmark (benchmarks/manypeers.sh): a PUB bound
 * to {@code --bind ENDPOINT} that publishes 16-byte messages at {@code --rate} messages per second
 * (a burst every millisecond), until killed; JeroMQ's defaults otherwise. Prints the bound
 * endpoint on stderr as {@code bound tcp://...}. The twin of benchmarks/native/fanout_pub.c.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.zmtp.benchmarks.manypeers.JeromqFanoutPub --bind tcp://127.0.0.1:* --rate 100
 * </pre>
 */
public final class JeromqFanoutPub {
    private JeromqFanoutPub() {
    }

    public static void main(String[] args) {
        String usage = "JeromqFanoutPub --bind ENDPOINT --rate MSGS_PER_S [--delay-s S]";
        String endpoint = PeerArgs.required(args, "--bind", usage);
        double rate = Double.parseDouble(PeerArgs.required(args, "--rate", usage));
        ZMQ.Context ctx = ZMQ.context(1);
        ZMQ.Socket pub = ctx.socket(SocketType.PUB);
        if (!pub.bind(endpoint)) {
            System.err.println("cannot bind " + endpoint);
            System.exit(1);
        }
        System.err.println("bound " + pub.getLastEndpoint());
        PeerArgs.paced(rate, Double.parseDouble(PeerArgs.value(args, "--delay-s", "0")),
                seq -> pub.send(PeerArgs.message(seq), 0));
    }
}
