package io.zmtp.cli;

import picocli.CommandLine;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Prints command-line usage errors as picocli does (the error, then suggestions or the usage
 * help; exit status 2), except that no password or secret key given on the command line appears
 * in them: the values of the secret flags are masked wherever the message repeats them, and
 * arguments picocli could not match (perhaps the value of a mistyped secret flag) are shown only
 * when they look like option names, without an {@code =value}.
 */
final class RedactingErrorHandler implements IParameterExceptionHandler {
    /** Flags whose values are secret (a PLAIN account holds a password). */
    static final Set<String> SECRET_FLAGS = Set.of("--plain-password", "--plain-account", "--curve-secret-key");
    static final String MASK = "(not shown)";

    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        PrintWriter err = cmd.getErr();
        String message = ex instanceof UnmatchedArgumentException
                ? unmatched((UnmatchedArgumentException) ex) : String.valueOf(ex.getMessage());
        err.println(cmd.getColorScheme().errorText(redact(message, args)));
        if (!UnmatchedArgumentException.printSuggestions(ex, err)) {
            cmd.usage(err, cmd.getColorScheme());
        }
        err.flush();
        return cmd.getExitCodeExceptionMapper() != null
                ? cmd.getExitCodeExceptionMapper().getExitCode(ex)
                : cmd.getCommandSpec().exitCodeOnInvalidInput();
    }

    private static String unmatched(UnmatchedArgumentException ex) {
        List<String> shown = new ArrayList<>();
        int hidden = 0;
        for (String a : ex.getUnmatched()) {
            if (a.startsWith("-") && a.length() > 1) {
                int eq = a.indexOf('=');
                shown.add("'" + (eq < 0 ? a : a.substring(0, eq + 1) + "...") + "'");
            } else {
                hidden++;
            }
        }
        StringBuilder sb = new StringBuilder();
        if (!shown.isEmpty()) {
            sb.append(shown.size() == 1 ? "Unknown option: " : "Unknown options: ").append(String.join(", ", shown));
        }
        if (hidden > 0) {
            sb.append(sb.length() > 0 ? "; and " : "").append(hidden)
                    .append(hidden == 1 ? " unexpected argument" : " unexpected arguments").append(" (not shown)");
        }
        return sb.toString();
    }

    /** {@code message} with every value of a secret flag in {@code args} masked. */
    static String redact(String message, String[] args) {
        String m = message;
        for (String secret : secretValues(args)) {
            m = m.replace(secret, MASK);
        }
        return m;
    }

    static List<String> secretValues(String[] args) {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            int eq = a.indexOf('=');
            String name = eq < 0 ? a : a.substring(0, eq);
            if (!SECRET_FLAGS.contains(name)) {
                continue;
            }
            String v = eq >= 0 ? a.substring(eq + 1) : i + 1 < args.length ? args[i + 1] : null;
            if (v != null && !v.isEmpty()) {
                values.add(v);
                int colon = v.indexOf(':');
                if (name.equals("--plain-account") && colon >= 0 && colon + 1 < v.length()) {
                    values.add(v.substring(colon + 1)); // the password alone
                }
            }
        }
        values.sort((x, y) -> y.length() - x.length()); // the longest first, so no part of one stays
        return values;
    }
}
