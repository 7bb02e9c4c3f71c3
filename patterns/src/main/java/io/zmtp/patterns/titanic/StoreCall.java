package io.zmtp.patterns.titanic;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/**
 * How the Titanic server calls its {@link TitanicStore}, written once: every call's outcome is a
 * future, also when the store throws instead of returning one (its promise is a future; a broken
 * store must not break the caller's loop), and a failure is seen without the wrappers futures add.
 */
final class StoreCall {
    private StoreCall() {
    }

    /** The store's future, or one failed with what the call threw. */
    static <T> CompletableFuture<T> of(Supplier<CompletableFuture<T>> call) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The failure itself, without the CompletionException or ExecutionException around it. */
    static Throwable unwrap(Throwable e) {
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }
}
