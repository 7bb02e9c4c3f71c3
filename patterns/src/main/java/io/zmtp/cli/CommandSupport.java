package io.zmtp.cli;

import java.io.PrintWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;

/** What the pattern commands share: printing events one per line, and running until stopped. */
final class CommandSupport {
    /** Exit status of a command whose component crashed on purpose (a simulated failure). */
    static final int SIMULATED_CRASH = 3;

    private CommandSupport() {
    }

    /** A listener printing each event on its own line, or nothing when quiet. */
    static <E> Consumer<E> printer(PrintWriter out, boolean quiet) {
        if (quiet) {
            return e -> { };
        }
        return e -> {
            out.println(e);
            out.flush();
        };
    }

    /**
     * Waits until {@code terminated} completes (the component closed or crashed on purpose), the
     * calling thread is interrupted, or the JVM shuts down (Ctrl-C, SIGTERM); in the last two cases
     * {@code close} runs.
     */
    static void runUntilStopped(CompletableFuture<Void> terminated, Runnable close) {
        Thread hook = new Thread(close, "zmtp-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            terminated.get();
        } catch (InterruptedException e) {
            close.run();
        } catch (ExecutionException e) {
            // closed with an error: nothing more to wait for
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or has run
            }
        }
    }

    /** A one-line reason for a failure, for the error stream. */
    static String reason(Throwable t) {
        Throwable c = t;
        while (c.getCause() != null && c.getMessage() == null) {
            c = c.getCause();
        }
        return c.getMessage() != null ? c.getMessage() : c.toString();
    }
}
