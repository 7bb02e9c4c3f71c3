package io.zmtp.socket;

import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelOption;

/**
 * The kernel settings of a socket's tcp:// connections that {@link SocketOptions} carries:
 * SO_SNDBUF (ZMQ_SNDBUF), SO_RCVBUF (ZMQ_RCVBUF) and IP_TOS (ZMQ_TOS), each set only when
 * given (0 keeps the system's default, as libzmq's -1 and 0 do), on connections made and
 * accepted alike. The listen backlog (ZMQ_BACKLOG) is set on the bound endpoint's server channel.
 */
final class TcpSocketOptions {
    private TcpSocketOptions() {
    }

    /** Sets the buffer sizes and type of service of a new tcp:// connection. */
    static void apply(Channel ch, SocketOptions options) {
        ChannelConfig c = ch.config();
        if (options.sendBuffer() > 0) {
            c.setOption(ChannelOption.SO_SNDBUF, options.sendBuffer());
        }
        if (options.receiveBuffer() > 0) {
            c.setOption(ChannelOption.SO_RCVBUF, options.receiveBuffer());
        }
        if (options.typeOfService() > 0) {
            c.setOption(ChannelOption.IP_TOS, options.typeOfService());
        }
    }
}
