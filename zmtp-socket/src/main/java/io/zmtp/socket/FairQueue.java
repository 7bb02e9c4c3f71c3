package io.zmtp.socket;

import java.util.ArrayList;

/**
 * Incoming fair queuing (DEALER, ROUTER, PULL, SUB, REP...): the peers a socket reads from.
 * The event loop reads each ready connection in turn, at most a bounded batch per turn, so no
 * peer can starve the others. When the application falls behind (a receive high-water mark is
 * reached, or it asks to pause), reading pauses on every peer and resumes together once every
 * {@link ReadPause reason to pause} has cleared; peers that attach meanwhile start paused.
 * Owned by its socket, which offers it to the types through {@link ZmtpSocket#receiveFrom},
 * {@link ReceivePath#pause} and {@link ReceivePath#limit}.
 */
final class FairQueue {
    private final ArrayList<Pipe> pipes = new ArrayList<>();
    /** The number of pipes, readable off the loop (a blocking socket's thresholds). */
    private volatile int size;
    private int reasons;

    void attach(Pipe p) {
        p.fairQueueIndex = pipes.size();
        pipes.add(p);
        size = pipes.size();
        if (reasons != 0) {
            p.setReading(false);
        }
    }

    /** Stops reading from {@code p}, in constant time (the last peer takes its place). */
    void detach(Pipe p) {
        int i = p.fairQueueIndex;
        if (i < 0 || i >= pipes.size() || pipes.get(i) != p) {
            return;
        }
        Pipe last = pipes.remove(pipes.size() - 1);
        if (last != p) {
            pipes.set(i, last);
            last.fairQueueIndex = i;
        }
        p.fairQueueIndex = -1;
        size = pipes.size();
    }

    /** Stops reading from every peer, for {@code reason}. */
    void pause(ReadPause reason) {
        boolean was = reasons != 0;
        reasons |= reason.bit;
        if (!was) {
            for (Pipe p : pipes) {
                p.setReading(false);
            }
        }
    }

    /** Clears {@code reason}; reading resumes when no reason is left. */
    void resume(ReadPause reason) {
        if ((reasons & reason.bit) == 0) {
            return;
        }
        reasons &= ~reason.bit;
        if (reasons == 0) {
            for (Pipe p : pipes) {
                p.setReading(true);
            }
        }
    }

    /** The number of peers read from; any thread. */
    int size() {
        return size;
    }
}
