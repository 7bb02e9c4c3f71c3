package io.zmtp.cli;

import io.zmtp.security.CurveKeyPair;
import io.zmtp.security.Z85;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An option that needs a value takes the next argument whatever it begins with. A Z85 key may
 * begin with {@code -}, and when the next character was one of the command's short option letters
 * ({@code -q=vgcw...} in {@code cat}, about one key in 900) picocli took the key for that option
 * and refused the command line; so did a password beginning with {@code -}.
 */
class OptionValuesTest {
    /** A valid key pair made by libzmq whose secret key begins with {@code -q} ({@code cat}'s --quiet). */
    static final String LIBZMQ_SECRET = "-q=vgcw>J<{<W1AYeR6hP!j3*kfNLbs^M{NR^GcU";
    static final String Z85_DIGITS =
            "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

    final List<CatRun> runs = new ArrayList<>();

    @AfterEach
    void stop() {
        runs.forEach(CatRun::close);
    }

    /**
     * A secret key (any 32 bytes are one) whose Z85 text begins with the two characters of
     * {@code prefix}: Z85 writes each 4 bytes as 5 base-85 digits, the most significant first.
     */
    static String secretKeyStartingWith(String prefix, Random random) {
        byte[] key = new byte[32];
        random.nextBytes(key);
        long first = (Z85_DIGITS.indexOf(prefix.charAt(0)) * 85L + Z85_DIGITS.indexOf(prefix.charAt(1)))
                * 85 * 85 * 85 + random.nextInt(85 * 85 * 85);
        for (int i = 0; i < 4; i++) {
            key[i] = (byte) (first >>> (24 - 8 * i));
        }
        String z85 = Z85.encode(key);
        assertTrue(z85.startsWith(prefix), z85);
        return z85;
    }

    /** The short option letters of a command, as picocli matches them ({@code -q}, {@code -t}...). */
    static TreeSet<Character> shortLetters(CommandLine command) {
        return new TreeSet<>(command.getCommandSpec().posixOptionsMap().keySet());
    }

    /**
     * Every option of every command that takes one value as text, given a value that begins
     * with {@code -} and then each of that command's short option letters (or a second
     * {@code -}), keeps exactly that value.
     */
    @Test
    void everyOptionThatNeedsAValueTakesOneBeginningWithADash() {
        int checked = 0;
        CommandLine cl = ZmtpCli.commandLine(); // picocli sets every option anew at each parse
        cl.getCommandSpec().parser().collectErrors(true);
        for (Map.Entry<String, CommandLine> sub : cl.getSubcommands().entrySet()) {
            sub.getValue().getCommandSpec().parser().collectErrors(true);
            TreeSet<Character> letters = shortLetters(sub.getValue());
            letters.add('-');
            for (OptionSpec option : sub.getValue().getCommandSpec().options()) {
                boolean oneValue = option.arity().min() == 1 && option.arity().max() == 1;
                boolean text = option.type() == String.class
                        || (List.class.isAssignableFrom(option.type()) && option.auxiliaryTypes()[0] == String.class);
                if (!oneValue || !text) {
                    continue;
                }
                for (char letter : letters) {
                    String value = "-" + letter + "=value";
                    ParseResult result = cl.parseArgs(sub.getKey(), option.longestName(), value);
                    ParseResult parsed = result.subcommand();
                    String where = sub.getKey() + " " + option.longestName() + " " + value;
                    assertTrue(parsed.hasMatchedOption(option.longestName()), where + ": not matched " + parsed.errors());
                    Object got = parsed.matchedOption(option.longestName()).getValue();
                    assertEquals(value, got instanceof List<?> l && !l.isEmpty() ? l.get(l.size() - 1) : got, where);
                    for (Exception e : parsed.errors()) {
                        assertFalse(e.getMessage().contains(option.longestName()), where + ": " + e.getMessage());
                    }
                    checked++;
                }
            }
        }
        assertTrue(checked > 100, "options checked: " + checked); // every command has text options
    }

    /**
     * The issue's case in full: in {@code cat} and in every pattern command with security
     * options, a CURVE server's secret key beginning with each of the command's short option
     * letters is taken, and so are a server key, an allowed client key and a PLAIN password
     * beginning with one.
     */
    @Test
    void aCurveKeyBeginningWithEachShortOptionLetterIsTakenInCatAndThePatternCommands() {
        Random random = new Random(28);
        int commands = 0;
        CommandLine cl = ZmtpCli.commandLine();
        for (Map.Entry<String, CommandLine> sub : cl.getSubcommands().entrySet()) {
            if (!sub.getValue().getCommandSpec().mixins().values().stream()
                    .anyMatch(m -> m.userObject() instanceof SecurityOptions)) {
                continue;
            }
            commands++;
            for (char letter : shortLetters(sub.getValue())) {
                String secret = secretKeyStartingWith("-" + letter, random);
                String where = sub.getKey() + " with keys beginning -" + letter;

                SecurityOptions server = security(cl, sub.getKey(), "--curve-server", "--curve-secret-key", secret,
                        "--curve-allow", secret);
                server.mechanism();
                assertEquals("CURVE server (key " + CurveKeyPair.fromSecretKey(secret).publicKeyZ85()
                        + ", 1 allowed client keys)", server.describe(), where);

                SecurityOptions client = security(cl, sub.getKey(), "--curve-server-key", secret,
                        "--curve-secret-key", secret);
                client.mechanism();
                assertTrue(client.describe().endsWith("server key " + secret + ")"), where + ": " + client.describe());

                SecurityOptions plain = security(cl, sub.getKey(), "--plain-user", "-" + letter, "--plain-password",
                        "-" + letter + "pw");
                plain.mechanism();
                assertEquals("PLAIN client (user '-" + letter + "')", plain.describe(), where);
            }
        }
        assertTrue(commands >= 10, "commands with security options: " + commands);
    }

    /** The command's security options after parsing {@code args}; the parse must not fail. */
    static SecurityOptions security(CommandLine cl, String command, String... args) {
        String[] all = new String[args.length + 1];
        all[0] = command;
        System.arraycopy(args, 0, all, 1, args.length);
        CommandLine sub = cl.getSubcommands().get(command);
        sub.getCommandSpec().parser().collectErrors(true);
        ParseResult parsed = cl.parseArgs(all).subcommand();
        for (Exception e : parsed.errors()) {
            assertFalse(e.getMessage().contains("--curve") || e.getMessage().contains("--plain"),
                    command + ": " + e.getMessage());
        }
        return (SecurityOptions) sub.getCommandSpec().mixins().values().stream()
                .filter(m -> m.userObject() instanceof SecurityOptions).findFirst().orElseThrow().userObject();
    }

    /** The reproduction of the report: libzmq's key pair serves a CURVE client through {@code cat}. */
    @Test
    void catServesWithALibzmqSecretKeyThatBeginsWithDashQ() {
        String serverPublic = CurveKeyPair.fromSecretKey(LIBZMQ_SECRET).publicKeyZ85();
        CatRun server = start("-t", "REP", "-b", "tcp://127.0.0.1:0", "--echo", "-n", "1",
                "--curve-server", "--curve-secret-key", LIBZMQ_SECRET);
        String ep = server.bound();
        CatRun client = start("-t", "REQ", "-c", ep, "--curve-server-key", serverPublic);
        client.input("through a key that begins with -q\n").endInput();
        assertEquals("through a key that begins with -q", client.line());
        assertEquals(0, client.exitCode());
        assertEquals(0, server.exitCode());
    }

    /**
     * An option whose value may be left out ({@code --stats[=MS]}) takes a following value only
     * when it does not begin with {@code -}: the next option stays an option.
     */
    @Test
    void anOptionalValueLeavesTheNextOptionAlone() {
        CommandLine cl = ZmtpCli.commandLine();
        CatCommand cat = (CatCommand) cl.getSubcommands().get("cat").getCommand();
        cl.parseArgs("cat", "--stats", "-t", "PUSH", "-c", "tcp://127.0.0.1:1");
        assertEquals(0L, cat.statsMs);
        cl = ZmtpCli.commandLine();
        cat = (CatCommand) cl.getSubcommands().get("cat").getCommand();
        cl.parseArgs("cat", "-t", "PUSH", "--stats", "250", "-c", "tcp://127.0.0.1:1");
        assertEquals(250L, cat.statsMs);
        cl = ZmtpCli.commandLine();
        cat = (CatCommand) cl.getSubcommands().get("cat").getCommand();
        cl.parseArgs("cat", "-t", "PUSH", "-c", "tcp://127.0.0.1:1", "--stats");
        assertEquals(0L, cat.statsMs);
    }

    /** Every option of the command line whose value may be left out parses by {@link OptionalValue}'s rule. */
    @Test
    void everyOptionalValueFollowsTheSameRule() {
        for (Map.Entry<String, CommandLine> sub : ZmtpCli.commandLine().getSubcommands().entrySet()) {
            for (OptionSpec option : sub.getValue().getCommandSpec().options()) {
                if (option.arity().min() == 0 && option.arity().max() > 0 && option.type() != boolean.class
                        && option.type() != Boolean.class) {
                    assertTrue(option.preprocessor() instanceof OptionalValue,
                            sub.getKey() + " " + option.longestName() + " has an optional value but not OptionalValue's rule");
                }
            }
        }
    }

    CatRun start(String... args) {
        CatRun run = CatRun.start(args);
        runs.add(run);
        return run;
    }
}
