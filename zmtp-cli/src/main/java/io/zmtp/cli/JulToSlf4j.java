package io.zmtp.cli;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.SimpleFormatter;

/**
 * Sends what libraries log through java.util.logging (the PostgreSQL driver) to the command
 * line's SLF4J logging, so that the output has one format and one destination: without it, JUL's
 * console handler prints its own two-line format on stderr beside SLF4J's lines. Records keep
 * their logger name; SEVERE is ERROR, WARNING WARN, INFO INFO, CONFIG and FINE DEBUG, below TRACE.
 */
final class JulToSlf4j extends Handler {
    /** Formats a record's message with its parameters, as JUL's own handlers would. */
    private final SimpleFormatter formatter = new SimpleFormatter();

    private JulToSlf4j() {
    }

    /** Replaces JUL's root handlers (the console) by this one; JUL's levels stay as configured. */
    static void install() {
        LogManager.getLogManager().reset();
        java.util.logging.Logger root = java.util.logging.Logger.getLogger("");
        root.setLevel(Level.INFO);
        root.addHandler(new JulToSlf4j());
    }

    @Override
    public void publish(LogRecord record) {
        if (record == null) {
            return;
        }
        Logger log = LoggerFactory.getLogger(record.getLoggerName() == null ? "jul" : record.getLoggerName());
        int level = record.getLevel().intValue();
        String message = formatter.formatMessage(record);
        Throwable thrown = record.getThrown();
        if (level >= Level.SEVERE.intValue()) {
            log.error(message, thrown);
        } else if (level >= Level.WARNING.intValue()) {
            log.warn(message, thrown);
        } else if (level >= Level.INFO.intValue()) {
            log.info(message, thrown);
        } else if (level >= Level.FINE.intValue()) {
            log.debug(message, thrown);
        } else {
            log.trace(message, thrown);
        }
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }
}
