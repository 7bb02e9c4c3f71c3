package io.zmtp.patterns;

import io.zmtp.testing.Await;
import io.zmtp.wire.ZmtpMessage;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Short names for the pattern tests: the shared fixtures of {@code io.zmtp.testing} (waits with
 * deadlines, {@link io.zmtp.testing.Recorder}) and a message's frames as strings.
 */
public final class PatternTesting {
    /** The deadline of every wait. */
    public static final Duration T = Await.DEADLINE;

    private PatternTesting() {
    }

    public static void eventually(String what, BooleanSupplier condition) {
        eventually(() -> what, condition);
    }

    public static void eventually(Supplier<String> what, BooleanSupplier condition) {
        Await.until(T, what, condition);
    }

    /** The future's value, failing the test after the deadline. */
    public static <V> V get(CompletableFuture<V> f) {
        return Await.get(f);
    }

    /** The frames as strings; the message is released. */
    public static List<String> strings(ZmtpMessage m) {
        try {
            List<String> l = new ArrayList<>();
            for (int i = 0; i < m.size(); i++) {
                l.add(m.frameString(i));
            }
            return l;
        } finally {
            m.release();
        }
    }

    /** The tcp port of an endpoint such as tcp://127.0.0.1:40123. */
    public static int port(String endpoint) {
        return io.zmtp.testing.FreePorts.port(endpoint);
    }
}
