package io.zmtp.patterns.majordomo;

import io.zmtp.wire.Frames;

/**
 * Where a {@link MajordomoHandler} puts its answer to one request: zero or more
 * {@link #partial partial} replies, then exactly one {@link #finish final} reply (or
 * {@link #fail}). Callable from any thread, at any time after the handler was called: a handler
 * may return at once and answer later (an asynchronous result). The worker keeps heartbeating
 * meanwhile.
 *
 * <p>Under MDP/0.2 each partial reply goes to the broker at once as a PARTIAL command and the
 * final one as FINAL. MDP/0.1 has no partial replies: the worker joins the frames of every
 * partial reply and the final one into its single REPLY (the same rule the broker applies for a
 * 0.1 client of a 0.2 worker).
 */
public interface ReplyStream {

    /** The protocol version the worker speaks. */
    MdpVersion version();

    /** Sends a partial reply (0.2), or keeps its frames for the final reply (0.1). */
    void partial(Frames frames);

    default void partial(byte[]... frames) {
        partial(Frames.of(frames));
    }

    default void partial(String... frames) {
        partial(Frames.ofStrings(frames));
    }

    /** Sends the final reply; the worker is then ready for its next request. */
    void finish(Frames frames);

    default void finish(byte[]... frames) {
        finish(Frames.of(frames));
    }

    default void finish(String... frames) {
        finish(Frames.ofStrings(frames));
    }

    /**
     * The request cannot be answered. MDP has no error reply, so the worker sends DISCONNECT and
     * registers again on a new connection: the broker forgets the request, and the client's retry
     * (or timeout) takes over.
     */
    void fail(Throwable cause);
}
