package io.zmtp.patterns;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.zmtp.wire.ZmtpMessage;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One message held back for a while on a component's event loop: the guide's simulated work time
 * or overload of a server or worker. If the component closes first, {@link #cancel()} releases
 * the message. Used on the event loop only.
 */
public final class DelayedMessage {
    private ZmtpMessage held;
    private ScheduledFuture<?> timer;

    /** Holds {@code msg} for {@code delay}, then hands it to {@code then}, on {@code loop}. */
    public void hold(EventExecutor loop, ZmtpMessage msg, Duration delay, Consumer<ZmtpMessage> then) {
        cancel();
        held = msg;
        timer = loop.schedule(() -> {
            timer = null;
            ZmtpMessage m = held;
            held = null;
            if (m != null) {
                then.accept(m);
            }
        }, delay.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Forgets the held message (released) and its timer. */
    public void cancel() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        if (held != null) {
            held.release();
            held = null;
        }
    }
}
