package io.zmtp.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The {@code zmtp} command line: {@code java -jar zmtp-cli/target/zmtp.jar <command> [options]}.
 * Each subcommand is a class of this package named after the command.
 */
@Command(name = "zmtp", mixinStandardHelpOptions = true, version = "zmtp 0.1.0",
        description = "ZMTP 3.x sockets and the ZeroMQ guide's reliable request-reply patterns.")
public final class ZmtpCli implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** The subcommands by name, in the order the usage lists them. */
    static final Map<String, Supplier<Object>> COMMANDS = new LinkedHashMap<>();

    static {
        COMMANDS.put("help", CommandLine.HelpCommand::new);
        COMMANDS.put("cat", CatCommand::new);
        COMMANDS.put("keygen", KeygenCommand::new);
        COMMANDS.put("tripping", TrippingCommand::new);
        COMMANDS.put("lpclient", LpClientCommand::new);
        COMMANDS.put("lpserver", LpServerCommand::new);
        COMMANDS.put("spqueue", SpQueueCommand::new);
        COMMANDS.put("spworker", SpWorkerCommand::new);
        COMMANDS.put("ppqueue", PpQueueCommand::new);
        COMMANDS.put("ppworker", PpWorkerCommand::new);
        COMMANDS.put("mdbroker", MdbrokerCommand::new);
        COMMANDS.put("mdworker", MdworkerCommand::new);
        COMMANDS.put("mdclient", MdclientCommand::new);
        COMMANDS.put("mmi", MmiCommand::new);
        COMMANDS.put("bstarsrv", BstarSrvCommand::new);
        COMMANDS.put("bstarcli", BstarCliCommand::new);
        COMMANDS.put("flserver", FlServerCommand::new);
        COMMANDS.put("flclient", FlClientCommand::new);
        COMMANDS.put("titanic", TitanicCommand::new);
        COMMANDS.put("ticlient", TiclientCommand::new);
    }

    /**
     * Builds the command line with every subcommand (also used by tests). An option that needs a
     * value takes the next argument whatever it begins with, as getopt does: a Z85 key or a
     * password may begin with {@code -}, and picocli would otherwise parse {@code -q=vgcw...} as
     * its option {@code -q}. (The one value it cannot take is {@code --} alone, the end of the
     * options.) An option whose value may be left out parses by {@link OptionalValue}'s rule.
     */
    public static CommandLine commandLine() {
        return commandLine(COMMANDS.keySet());
    }

    /**
     * The command line with the named subcommands only. Picocli reads every option of every
     * subcommand it is given, about 200 ms of a cold start for all twenty; a broker restarted
     * after a crash is the outage, so {@link #main} builds only the one it runs.
     */
    static CommandLine commandLine(Collection<String> names) {
        CommandLine cl = new CommandLine(new ZmtpCli());
        for (String name : names) {
            cl.addSubcommand(name, COMMANDS.get(name).get());
        }
        // after the subcommands: picocli applies these to the subcommands it holds when called
        return cl.setCaseInsensitiveEnumValuesAllowed(true)
                .setAllowOptionsAsOptionParameters(true)
                .setParameterExceptionHandler(new RedactingErrorHandler());
    }

    static final String LEAK_DETECTION = "io.netty.leakDetection.level";
    static final String NETTY_JFR = "io.netty.jfr.enabled";

    public static void main(String[] args) {
        // A command is an application: Netty's leak detector, on by default, records a stack
        // trace for one buffer in 128, 1-2% of an echo server's CPU with 1,000 peers (RESULTS.md,
        // many peers). The tests, and a user chasing a leak, set the level themselves.
        if (System.getProperty(LEAK_DETECTION) == null) {
            System.setProperty(LEAK_DETECTION, "disabled");
        }
        // Netty's flight-recorder events for its buffer pool: the first pooled chunk, allocated
        // on an event loop at the first connection, registers them with JFR, which starts JFR's
        // own machinery there: about a fifth of what a fresh server's first 1,000 handshakes cost
        // (RESULTS.md, "Netty's JFR events at the first connection"). A user who records them
        // sets the property to true.
        if (System.getProperty(NETTY_JFR) == null) {
            System.setProperty(NETTY_JFR, "false");
        }
        JulToSlf4j.install();
        boolean one = args.length > 0 && COMMANDS.containsKey(args[0]) && !args[0].equals("help");
        System.exit((one ? commandLine(List.of(args[0])) : commandLine()).execute(args));
    }
}
