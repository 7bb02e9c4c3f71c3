package io.zmtp.benchmarks.manypeers;

import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;

/**
 * Our publisher of the many-peers fan-out benchmark (benchmarks/manypeers.sh), written as a user
 * would: a PUB of a default context (one event loop per processor), default options, wrapped in
 * a {@link BlockingSocket} on the application thread, bound to {@code --bind ENDPOINT},
 * publishing 16-byte messages at {@code --rate} messages per second (a burst every millisecond)
 * until killed. {@code --io-threads N} gives the context N event loops instead. Prints the bound
 * endpoint on stderr as {@code bound tcp://...}. The twin of benchmarks/native/fanout_pub.c.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.zmtp.benchmarks.manypeers.ZmtpFanoutPub --bind tcp://127.0.0.1:0 --rate 100
 * </pre>
 */
public final class ZmtpFanoutPub {
    private ZmtpFanoutPub() {
    }

    public static void main(String[] args) {
        String usage = "ZmtpFanoutPub --bind ENDPOINT --rate MSGS_PER_S [--delay-s S] [--io-threads N]";
        String endpoint = PeerArgs.required(args, "--bind", usage);
        double rate = Double.parseDouble(PeerArgs.required(args, "--rate", usage));
        String ioThreads = PeerArgs.value(args, "--io-threads", null);
        ZmtpContext ctx = ioThreads == null ? ZmtpContext.create() : ZmtpContext.create(Integer.parseInt(ioThreads));
        BlockingSocket pub = BlockingSocket.wrap(ctx.socket(SocketType.PUB));
        System.err.println("bound " + pub.bind(endpoint));
        PeerArgs.paced(rate, Double.parseDouble(PeerArgs.value(args, "--delay-s", "0")),
                seq -> pub.send(ZmtpMessage.of(PeerArgs.message(seq))));
    }
}
