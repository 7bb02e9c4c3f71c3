package io.zmtp.cli;

import io.zmtp.socket.SocketOptions;

import java.util.List;

/**
 * A command whose sockets connect, and take {@link ConnectionLossOptions}: the socket options
 * its connecting sockets are built with, from its flags as parsed (tests read them before the
 * command runs, so that every flag is seen to reach a socket).
 */
interface ConnectingCommand {
    /** The options of each kind of socket the command connects with (titanic: its workers', its client's). */
    List<SocketOptions> connectingSocketOptions();
}
