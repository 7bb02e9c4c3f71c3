package io.zmtp.socket;

import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelOption;
import io.zmtp.transport.IoTransport;

/**
 * The kernel settings of a socket's tcp:// connections that {@link SocketOptions} carries:
 * SO_SNDBUF (ZMQ_SNDBUF), SO_RCVBUF (ZMQ_RCVBUF), IP_TOS (ZMQ_TOS) and TCP_USER_TIMEOUT
 * (ZMQ_TCP_MAXRT, epoll only), each set only when given (0 keeps the system's default, as
 * libzmq's -1 and 0 do), on connections made and accepted alike. The listen backlog
 * (ZMQ_BACKLOG) is set on the bound endpoint's server channel.
 */
final class TcpSocketOptions {
    private TcpSocketOptions() {
    }

    /** Sets the buffer sizes, type of service and retransmit timeout of a new tcp:// connection. */
    static void apply(Channel ch, SocketOptions options, IoTransport io) {
        ChannelConfig c = ch.config();
        if (options.sendBuffer() > 0) {
            c.setOption(ChannelOption.SO_SNDBUF, options.sendBuffer());
        }
        if (options.receiveBuffer() > 0) {
            c.setOption(ChannelOption.SO_RCVBUF, options.receiveBuffer());
        }
        applyNotInherited(ch, options, io);
    }

    /**
     * What is set on each connection even where accepted ones inherit their listener's settings
     * ({@link IoTransport#inheritsTcpSettings()}): IP_TOS, which Linux does not copy, and
     * TCP_USER_TIMEOUT, which tcp(7) does not promise to copy (one system call, made only when
     * the option is given).
     */
    static void applyNotInherited(Channel ch, SocketOptions options, IoTransport io) {
        if (options.typeOfService() > 0) {
            ch.config().setOption(ChannelOption.IP_TOS, options.typeOfService());
        }
        io.retransmitTimeout(ch, options.tcpRetransmitTimeout());
    }
}
