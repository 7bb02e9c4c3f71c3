package io.zmtp.patterns.kit;

import io.zmtp.wire.ZmtpMessage;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * One message held back for a while on a component's loop clock: the guide's simulated work time
 * or overload of a server or worker. If the component closes first, {@link #cancel()} releases
 * the message. Used on the event loop only.
 */
public final class DelayedMessage {
    private ZmtpMessage held;
    private LoopClock.Timer timer;

    /** Holds {@code msg} for {@code delay}, then hands it to {@code then}, on the clock's loop. */
    public void hold(LoopClock clock, ZmtpMessage msg, Duration delay, Consumer<ZmtpMessage> then) {
        cancel();
        held = msg;
        timer = clock.schedule(() -> {
            timer = null;
            ZmtpMessage m = held;
            held = null;
            if (m != null) {
                then.accept(m);
            }
        }, delay);
    }

    /** Forgets the held message (released) and its timer. */
    public void cancel() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
        if (held != null) {
            held.release();
            held = null;
        }
    }
}
