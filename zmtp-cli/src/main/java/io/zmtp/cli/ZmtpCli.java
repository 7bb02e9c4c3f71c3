package io.zmtp.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code zmtp} command line: {@code java -jar zmtp-cli/target/zmtp.jar <command> [options]}.
 * Each subcommand is a class of this package named after the command.
 */
@Command(name = "zmtp", mixinStandardHelpOptions = true, version = "zmtp 0.1.0",
        description = "ZMTP 3.x sockets and the ZeroMQ guide's reliable request-reply patterns.",
        subcommands = {CommandLine.HelpCommand.class, CatCommand.class, KeygenCommand.class, TrippingCommand.class,
                LpClientCommand.class, LpServerCommand.class,
                SpQueueCommand.class, SpWorkerCommand.class,
                PpQueueCommand.class, PpWorkerCommand.class,
                MdbrokerCommand.class, MdworkerCommand.class, MdclientCommand.class, MmiCommand.class,
                BstarSrvCommand.class, BstarCliCommand.class,
                FlServerCommand.class, FlClientCommand.class,
                TitanicCommand.class, TiclientCommand.class})
public final class ZmtpCli implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /**
     * Builds the command line with every subcommand (also used by tests). An option that needs a
     * value takes the next argument whatever it begins with, as getopt does: a Z85 key or a
     * password may begin with {@code -}, and picocli would otherwise parse {@code -q=vgcw...} as
     * its option {@code -q}. (The one value it cannot take is {@code --} alone, the end of the
     * options.) An option whose value may be left out parses by {@link OptionalValue}'s rule.
     */
    public static CommandLine commandLine() {
        return new CommandLine(new ZmtpCli()).setCaseInsensitiveEnumValuesAllowed(true)
                .setAllowOptionsAsOptionParameters(true)
                .setParameterExceptionHandler(new RedactingErrorHandler());
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }
}
