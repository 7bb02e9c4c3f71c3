package io.zmtp.cli;

import java.io.PrintWriter;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import picocli.CommandLine.Model.CommandSpec;

/** What the pattern commands share: printing events one per line, and running until stopped. */
final class CommandSupport {
    /** Exit status of a command whose component crashed on purpose (a simulated failure). */
    static final int SIMULATED_CRASH = CommonOptions.SIMULATED_CRASH;

    private CommandSupport() {
    }

    /** How long a command's warm-up may take before it goes on without it. */
    static final java.time.Duration WARM_UP = java.time.Duration.ofSeconds(5);

    /**
     * A context for a client command, warmed up ({@link io.zmtp.socket.ZmtpContext#warmUp}) so
     * that the first request's timeout does not pay for the JVM's first connection; the system
     * property {@code zmtp.warmUp=false} skips it. Host names are looked up as {@code names} say.
     */
    static io.zmtp.socket.ZmtpContext clientContext(NameLookupOptions names) {
        io.zmtp.socket.ZmtpContext ctx = names.apply(io.zmtp.socket.ZmtpContext.create(1));
        if (Boolean.parseBoolean(System.getProperty("zmtp.warmUp", "true"))) {
            ctx.warmUp(WARM_UP);
        }
        return ctx;
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
     * Waits until {@code terminated} completes (the component closed, crashed on purpose, or closed
     * itself because it could not go on), the calling thread is interrupted, or the JVM shuts down
     * (Ctrl-C, SIGTERM); in the last two cases {@code close} runs. Returns why the component
     * closed itself ({@code terminated} failed), or null.
     */
    static Throwable runUntilStopped(CompletionStage<Void> terminated, Runnable close) {
        Thread hook = onShutdown(close);
        try {
            terminated.toCompletableFuture().get();
            return null;
        } catch (InterruptedException e) {
            close.run();
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } finally {
            removeShutdownHook(hook);
        }
    }

    /**
     * Why {@code component} closed itself ({@link io.zmtp.patterns.kit.LoopComponent#terminated()}
     * failed: a worker whose socket stopped reconnecting), or null when it was closed, crashed on
     * purpose, or still runs.
     */
    static Throwable closedItself(io.zmtp.patterns.kit.LoopComponent component) {
        java.util.concurrent.CompletableFuture<Void> t = component.terminated().toCompletableFuture();
        if (!t.isCompletedExceptionally()) {
            return null;
        }
        try {
            t.join();
            return null;
        } catch (java.util.concurrent.CompletionException e) {
            return e.getCause() != null ? e.getCause() : e;
        }
    }

    /**
     * The one line of a command whose component closed itself ({@code E: stopped reconnecting to
     * ENDPOINT: REASON}, the {@link io.zmtp.patterns.kit.ReconnectStoppedException}'s message), on
     * {@code err}; returns {@link CommonOptions#FAILED}, the command's status.
     */
    static int reportClosedItself(PrintWriter err, Throwable why) {
        err.println("E: " + reason(why));
        err.flush();
        return CommonOptions.FAILED;
    }

    /** Runs {@code close} when the JVM shuts down (Ctrl-C, SIGTERM); {@link #removeShutdownHook} undoes it. */
    static Thread onShutdown(Runnable close) {
        Thread hook = new Thread(close, "zmtp-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        return hook;
    }

    /** Removes a hook of {@link #onShutdown} (none: null), unless the JVM is already running it. */
    static void removeShutdownHook(Thread hook) {
        if (hook == null) {
            return;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run
        }
    }

    /**
     * Runs a started component until it stops: waits for its start (a failure is reported on
     * {@code err} as "{@code name}: {@code what}: reason" and gives {@link CommonOptions#FAILED}),
     * then until it terminates or the command is stopped. Returns {@link CommonOptions#OK},
     * {@link CommonOptions#FAILED} (also when the component closed itself: a worker whose socket
     * stopped reconnecting, reported as one {@code E:} line, {@link #reportClosedItself}),
     * or {@link CommonOptions#SIMULATED_CRASH} when {@code crashed} says so.
     */
    static int run(io.zmtp.patterns.kit.LoopComponent component, PrintWriter err, String name, String what,
            java.util.function.BooleanSupplier crashed) {
        try {
            io.zmtp.patterns.kit.Futures.await(component.start(), java.time.Duration.ofSeconds(30));
            Throwable why = runUntilStopped(component.terminated(), component::close);
            if (why != null) {
                return reportClosedItself(err, why);
            }
            return crashed.getAsBoolean() ? SIMULATED_CRASH : CommonOptions.OK;
        } catch (RuntimeException e) {
            if (Thread.currentThread().isInterrupted()) {
                return CommonOptions.OK; // stopped while starting
            }
            if (e instanceof io.zmtp.patterns.kit.ReconnectStoppedException) {
                return reportClosedItself(err, e); // it closed itself before its start completed
            }
            err.println(name + ": " + what + ": " + reason(e));
            return CommonOptions.FAILED;
        } finally {
            component.close();
        }
    }

    /**
     * Builds a component from settings made by {@code settings} (an IllegalArgumentException there
     * is a usage error: {@link CommonOptions#USAGE}), runs it on a context of one event loop until
     * it stops (see {@link #run}), with its events printed unless quiet; a {@code crash} event ends
     * with {@link CommonOptions#SIMULATED_CRASH}. {@code names}: how the component's endpoints'
     * host names are looked up, connected or bound (set on the context only when given).
     */
    static <S, E> int runComponent(CommandSpec spec, String name, String what, CommonOptions.Output output,
            NameLookupOptions names, java.util.function.Supplier<S> settings, ComponentFactory<S, E> factory, Class<?> crash) {
        S s;
        try {
            s = settings.get();
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println(name + ": " + e.getMessage());
            return CommonOptions.USAGE;
        }
        java.util.concurrent.atomic.AtomicBoolean crashed = new java.util.concurrent.atomic.AtomicBoolean();
        io.zmtp.socket.ZmtpContext ctx = io.zmtp.socket.ZmtpContext.create(1);
        names.apply(ctx);
        try {
            io.zmtp.patterns.kit.LoopComponent c = factory.create(ctx, s,
                    CommandSupport.<E>printer(spec.commandLine().getOut(), output.quiet()).andThen(e -> {
                        if (crash != null && crash.isInstance(e)) {
                            crashed.set(true);
                        }
                    }));
            return run(c, spec.commandLine().getErr(), name, what, crashed::get);
        } finally {
            ctx.close(java.time.Duration.ofSeconds(5));
        }
    }

    /** A component's constructor: (context, settings, listener). */
    @FunctionalInterface
    interface ComponentFactory<S, E> {
        io.zmtp.patterns.kit.LoopComponent create(io.zmtp.socket.ZmtpContext ctx, S settings, Consumer<E> listener);
    }

    /** A one-line reason for a failure, for the error stream. */
    static String reason(Throwable t) {
        Throwable c = t;
        while (c.getCause() != null && c.getMessage() == null) {
            c = c.getCause();
        }
        return c.getMessage() != null ? c.getMessage() : c.toString();
    }

    /**
     * A failure and its causes as one line, each message once ("a: b: c"), for the error stream:
     * the cause of a store that cannot be opened is the reason an operator needs.
     */
    static String reasons(Throwable t) {
        StringBuilder sb = new StringBuilder();
        int depth = 0;
        for (Throwable c = t; c != null && depth < 10; c = c.getCause(), depth++) {
            String m = c.getMessage() != null ? c.getMessage() : c.getClass().getSimpleName();
            if (sb.indexOf(m) < 0) {
                sb.append(sb.length() == 0 ? "" : ": ").append(m);
            }
        }
        return sb.toString();
    }
}
