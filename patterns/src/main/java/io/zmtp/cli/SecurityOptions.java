package io.zmtp.cli;

import io.zmtp.security.NullMechanism;
import io.zmtp.socket.SocketOptions;
import picocli.CommandLine.Command;

/**
 * The security flags of a command that opens sockets, as a picocli mixin
 * ({@code @Mixin SecurityOptions security;}), so every such command offers the same ones.
 *
 * <p>Today only the NULL mechanism exists on the command line, so there are no flags yet. This
 * class is where they go: PLAIN ({@code --plain-user}, {@code --plain-password},
 * {@code --plain-server}) and CURVE ({@code --curve-server}, {@code --curve-secret-key},
 * {@code --curve-server-key}...) become {@code @Option} fields here, checked against each other
 * in {@link #apply}, which then sets the matching mechanism. A command calls {@link #apply}
 * while it builds its socket options and needs no change when flags are added. (The empty
 * {@code @Command} makes picocli accept the class as a mixin while it has no options.)
 */
@Command
public final class SecurityOptions {

    /**
     * Sets the security mechanism the flags ask for on {@code options}; throws
     * IllegalArgumentException for a contradictory combination.
     */
    public SocketOptions.Builder apply(SocketOptions.Builder options) {
        return options.mechanism(NullMechanism.INSTANCE);
    }

    /** The mechanism's name, for diagnostics. */
    public String describe() {
        return "NULL";
    }
}
