package io.zmtp.socket;

import java.util.ArrayList;

/**
 * Incoming fair queuing (DEALER, ROUTER, PULL, SUB, REP...): the peers a socket reads from.
 * The event loop reads each ready connection in turn, at most a bounded batch per turn, so no
 * peer can starve the others. When the application falls behind (a receive high-water mark is
 * reached, or it asks to pause), reading pauses on every peer and resumes together once every
 * reason to pause has cleared; peers that attach meanwhile start paused.
 */
final class FairQueue {
    /** The application asked to pause. */
    static final int APPLICATION = 1;
    /** Messages wait for a handler or a consumer. */
    static final int UNDELIVERED = 2;
    /** The socket type holds messages of its own (REP's waiting requests). */
    static final int TYPE_QUEUE = 4;
    /** A blocking socket's consumer thread is behind. */
    static final int CONSUMER = 8;

    private final ArrayList<Pipe> pipes = new ArrayList<>();
    private int reasons;

    void attach(Pipe p) {
        pipes.add(p);
        if (reasons != 0) {
            p.setReading(false);
        }
    }

    void detach(Pipe p) {
        pipes.remove(p);
    }

    /** Stops reading from every peer, for {@code reason}. */
    void pause(int reason) {
        boolean was = reasons != 0;
        reasons |= reason;
        if (!was) {
            for (Pipe p : pipes) {
                p.setReading(false);
            }
        }
    }

    /** Clears {@code reason}; reading resumes when no reason is left. */
    void resume(int reason) {
        if ((reasons & reason) == 0) {
            return;
        }
        reasons &= ~reason;
        if (reasons == 0) {
            for (Pipe p : pipes) {
                p.setReading(true);
            }
        }
    }

    int size() {
        return pipes.size();
    }
}
