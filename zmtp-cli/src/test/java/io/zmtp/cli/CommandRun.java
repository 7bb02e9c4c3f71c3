package io.zmtp.cli;

import io.zmtp.testing.Await;

import java.io.PrintWriter;
import java.io.Writer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One {@code zmtp} command running in this JVM on a thread of its own, through
 * {@link ZmtpCli#commandLine()}, its stdout and stderr collected line by line. Tests that start
 * several keep them in a list and {@link #stop()} each after the test.
 */
final class CommandRun {
    final Lines out = new Lines();
    final Lines err = new Lines();
    private final AtomicInteger exit = new AtomicInteger(Integer.MIN_VALUE);
    private final Thread thread;

    /** Starts {@code zmtp args...}; adds it to {@code runs} (to be stopped after the test). */
    CommandRun(List<CommandRun> runs, String... args) {
        thread = new Thread(() -> exit.set(ZmtpCli.commandLine().setOut(new PrintWriter(out, true))
                .setErr(new PrintWriter(err, true)).execute(args)), "cli-" + args[0]);
        thread.setDaemon(true);
        thread.start();
        runs.add(this);
    }

    /** The first output line containing {@code text}, waiting for it. */
    String awaitLine(String text) {
        Await.until(() -> "a line with '" + text + "' in " + out.lines + " (errors: " + err.lines + ")",
                () -> out.find(text) != null);
        return out.find(text);
    }

    /** The command's exit status, waiting for it. */
    int awaitExit() {
        try {
            thread.join(Await.DEADLINE.toMillis());
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        if (thread.isAlive()) {
            throw new AssertionError("command still running; output " + out.lines + ", errors " + err.lines);
        }
        return exit.get();
    }

    /** Stops a command that runs until stopped (as Ctrl-C would), and returns its exit status. */
    int stop() {
        if (thread.isAlive()) {
            thread.interrupt();
        }
        return awaitExit();
    }

    /** Lines written, as they complete. */
    static final class Lines extends Writer {
        final List<String> lines = new CopyOnWriteArrayList<>();
        private final StringBuilder partial = new StringBuilder();

        @Override
        public synchronized void write(char[] cbuf, int off, int len) {
            for (int i = off; i < off + len; i++) {
                char c = cbuf[i];
                if (c == '\n') {
                    lines.add(partial.toString());
                    partial.setLength(0);
                } else if (c != '\r') {
                    partial.append(c);
                }
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }

        /** The first line containing {@code text}, or null. */
        String find(String text) {
            for (String l : lines) {
                if (l.contains(text)) {
                    return l;
                }
            }
            return null;
        }

        long count(String text) {
            return lines.stream().filter(l -> l.contains(text)).count();
        }

        /** Everything written so far, a line break after each line. */
        String text() {
            StringBuilder sb = new StringBuilder();
            lines.forEach(l -> sb.append(l).append('\n'));
            return sb.toString();
        }

        @Override
        public String toString() {
            return lines.toString();
        }
    }
}
