package io.zmtp.patterns.kit;

import io.netty.util.concurrent.EventExecutor;

/**
 * Where the pattern components read the time and set their timers: one source of time for
 * heartbeats, expiry, retries and backoff, set in each component's settings.
 *
 * <p>{@link #system()} (the default everywhere) is each event loop's own clock: its ticker and
 * scheduler. {@link ManualClock} is a clock a test moves by hand; its timers still run on the
 * event loop of the component that set them, so a component's state is touched on its loop only,
 * whichever clock it has.
 *
 * <p>Why not Netty's {@code MockTicker}: an epoll or NIO event loop computes how long to block in
 * the selector from the real time and is created by the context's group with the system ticker;
 * moving a mock ticker neither wakes the selector nor changes a running loop's ticker. The
 * component's own timers are therefore set through this interface, while the sockets (connect,
 * handshake, ZMTP PING) keep real time.
 */
public interface PatternClock {

    /** The real clock: each event loop's ticker and scheduler; always the same instance. */
    static PatternClock system() {
        // A local enum: one instance for ever, and no name outside this method, so the interface
        // needs no public constant and SystemClock (a LoopClock) does not refer back to it.
        enum Real implements PatternClock {
            CLOCK;

            @Override
            public LoopClock on(EventExecutor loop) {
                return new SystemClock(loop);
            }

            @Override
            public String toString() {
                return "system clock";
            }
        }
        return Real.CLOCK;
    }

    /** This clock as seen from {@code loop}: the timers it sets run on {@code loop}. */
    LoopClock on(EventExecutor loop);
}
