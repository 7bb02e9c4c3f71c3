package io.zmtp.cli;

import io.zmtp.socket.ReconnectStop;
import io.zmtp.socket.SocketOptions;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * When a connecting command gives up on a peer, as a picocli mixin for {@code cat} and every
 * pattern command that connects ({@code @Mixin ConnectionLossOptions connection;}):
 * {@code --reconnect-stop} (ZMQ_RECONNECT_STOP, {@link SocketOptions#reconnectStop()}) and
 * {@code --tcp-retransmit-timeout} (ZMQ_TCP_MAXRT, {@link SocketOptions#tcpRetransmitTimeout()}),
 * set on the socket options the command builds its connecting sockets with ({@link #apply}).
 * Left out, the library's defaults: no case stops reconnecting, and the system's retransmission
 * timeout.
 *
 * <p>Not on {@code bstarsrv} nor {@code mdbroker --bstar}: their one connected socket is the
 * subscription to the peer's state, and a pair whose subscription stopped could never hear its
 * peer again.
 */
public final class ConnectionLossOptions {
    @Option(names = "--tcp-retransmit-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            defaultValue = "0",
            description = "How long sent data may stay unacknowledged before a tcp:// connection is dropped"
                    + " (ZMQ_TCP_MAXRT, TCP_USER_TIMEOUT; Linux with epoll only, ignored with a warning under NIO;"
                    + " default: 0, the system's).")
    Duration tcpRetransmitTimeout;

    @Option(names = "--reconnect-stop", paramLabel = "CASE", split = ",",
            description = "Stop reconnecting a connected endpoint after this (ZMQ_RECONNECT_STOP), repeatable or"
                    + " comma-separated: ${COMPLETION-CANDIDATES} (default: none; a peer's ERROR, refused"
                    + " credentials and incompatible socket types always stop it). A pattern client that"
                    + " replaces its socket when a try times out (lpclient, mdclient, mmi, ticlient, bstarcli,"
                    + " flclient -m 1) connects again with its next try: a stop lasts the rest of a try."
                    + " A worker (mdworker, ppworker, spworker, titanic) keeps its socket: a stop ends the command"
                    + " with status 1 and one 'E: stopped reconnecting to ENDPOINT: REASON' line (mdworker given"
                    + " several brokers: once every one has stopped). flclient -m 2 and 3 keep their sockets too,"
                    + " and run on without that server.")
    List<ReconnectStop> reconnectStop = new ArrayList<>();

    /** Sets the stop cases and the retransmission timeout on {@code options}; returns it. */
    public SocketOptions.Builder apply(SocketOptions.Builder options) {
        return options.tcpRetransmitTimeout(tcpRetransmitTimeout).reconnectStop(reconnectStop.toArray(ReconnectStop[]::new));
    }
}
