package io.zmtp.socket;

import io.zmtp.wire.Frames;
import io.zmtp.wire.ZmtpMessage;

/**
 * Where {@link BlockingSocket#recv()} is in the message it reads frame by frame (JeroMQ's
 * recv/hasReceiveMore shape): the message's frames, copied once into arrays when its first frame
 * is read (the message is released then), and the next frame to return. Used by one user thread.
 */
final class MultipartCursor {
    private Frames message;
    private int next;

    /** Starts reading {@code m} (taken: released here once its frames are copied). */
    void start(ZmtpMessage m) {
        message = Frames.takeFrom(m);
        next = 0;
    }

    /** The next frame of the message being read; the cursor is done after the last. */
    byte[] next() {
        byte[] f = message.frame(next++);
        if (next == message.size()) {
            message = null;
        }
        return f;
    }

    /** Whether a message is being read and has frames left. */
    boolean hasMore() {
        return message != null;
    }

    /** Throws when a message is half read: a whole-message receive now would skip its other frames. */
    void checkDone() {
        if (message != null) {
            throw new IllegalStateException("the message read with recv() has "
                    + (message.size() - next) + " frame(s) left: read them with recv()");
        }
    }
}
