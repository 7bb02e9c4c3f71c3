package io.zmtp.transport;

import java.time.Duration;

/**
 * TCP keepalive of a socket's tcp:// connections, as libzmq's ZMQ_TCP_KEEPALIVE,
 * ZMQ_TCP_KEEPALIVE_IDLE, _INTVL and _CNT: after {@code idle} without traffic the system sends a
 * probe every {@code interval}, and drops the connection after {@code count} unanswered ones.
 * It finds peers that vanished (a host powered off, a cable pulled) without any traffic of ours;
 * it cannot find a peer that is alive but silent, which is what heartbeats are for.
 *
 * <p>With epoll the three values are set per connection; with NIO they are set where the JDK
 * supports them (Linux, macOS), else only SO_KEEPALIVE with the system's timings.
 *
 * @param idle     silence before the first probe (whole seconds, at least 1)
 * @param interval time between probes (whole seconds, at least 1)
 * @param count    unanswered probes before the connection is dropped (at least 1)
 */
public record TcpKeepAlive(Duration idle, Duration interval, int count) {
    /** 120 s idle, then a probe every 20 s, 5 probes: a vanished peer is dropped within about 4 minutes. */
    public static final TcpKeepAlive DEFAULT = new TcpKeepAlive(Duration.ofSeconds(120), Duration.ofSeconds(20), 5);

    public TcpKeepAlive {
        if (idle.getSeconds() < 1 || interval.getSeconds() < 1 || count < 1) {
            throw new IllegalArgumentException("keepalive idle and interval must be at least 1 s, count at least 1");
        }
    }
}
