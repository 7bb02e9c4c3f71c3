package io.zmtp.cli;

import picocli.CommandLine;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/** Command-line durations: "250" or "250ms" (milliseconds), "2.5s", "1m", or ISO-8601 "PT2S". */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        String s = value.trim().toLowerCase(Locale.ROOT);
        try {
            Duration d;
            if (s.startsWith("pt")) {
                d = Duration.parse(value.trim());
            } else if (s.endsWith("ms")) {
                d = Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2).trim()));
            } else if (s.endsWith("s")) {
                d = Duration.ofNanos(Math.round(Double.parseDouble(s.substring(0, s.length() - 1).trim()) * 1e9));
            } else if (s.endsWith("m")) {
                d = Duration.ofNanos(Math.round(Double.parseDouble(s.substring(0, s.length() - 1).trim()) * 60e9));
            } else {
                d = Duration.ofMillis(Long.parseLong(s));
            }
            if (d.isNegative()) {
                throw new CommandLine.TypeConversionException("a duration cannot be negative: '" + value + "'");
            }
            return d;
        } catch (NumberFormatException | DateTimeParseException e) {
            throw new CommandLine.TypeConversionException("not a duration: '" + value
                    + "' (use 250, 250ms, 2.5s, 1m or PT2S)");
        }
    }

    /** {@code d} as this converter reads it back: "1s", "2500ms" (for defaults shown in --help). */
    public static String format(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }

    /** Parses {@code text} (an option's value); IllegalArgumentException naming {@code option} if it is not a duration. */
    public static Duration parse(String option, String text) {
        try {
            return new DurationConverter().convert(text);
        } catch (CommandLine.TypeConversionException e) {
            throw new IllegalArgumentException(option + ": " + e.getMessage());
        }
    }
}
