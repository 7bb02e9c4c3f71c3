package io.zmtp.cli;

import io.zmtp.socket.ZmtpSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.PrintWriter;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code zmtp cat}'s stdout: prints the lines the socket's handler formats, in a thread of its
 * own so that the event loop never waits for stdout; past {@code hwm} lines waiting, the socket
 * stops reading from its peers until half of them are printed (TCP then slows the peers).
 */
final class CatOutput implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(CatOutput.class);

    private final Object end = new Object();
    private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private final PrintWriter out;
    private final int hwm;
    private final ZmtpSocket socket;
    private final Runnable stdoutClosed;
    private final AtomicBoolean resumeAsked = new AtomicBoolean();
    private final Thread thread;
    private volatile boolean paused;

    /**
     * @param stdoutClosed what to do when stdout is closed (the run fails)
     */
    CatOutput(PrintWriter out, int hwm, ZmtpSocket socket, Runnable stdoutClosed) {
        this.out = out;
        this.hwm = hwm;
        this.socket = socket;
        this.stdoutClosed = stdoutClosed;
        this.thread = new Thread(this, "zmtp-cat-output");
        thread.setDaemon(true);
        thread.start();
    }

    /** A line to print (on the event loop). */
    void add(String line) {
        queue.add(line);
        if (!paused && queue.size() >= hwm) {
            paused = true;
            socket.pauseReceiving();
        }
    }

    /** On the event loop. */
    private void resume() {
        resumeAsked.set(false);
        if (paused && queue.size() <= hwm / 2) {
            paused = false;
            socket.resumeReceiving();
        }
    }

    @Override
    public void run() {
        try {
            Object l;
            while ((l = queue.take()) != end) {
                out.print((String) l);
                out.print('\n');
                if (queue.isEmpty()) {
                    out.flush();
                    if (out.checkError()) {
                        log.warn("stdout is closed");
                        stdoutClosed.run();
                        return;
                    }
                }
                if (paused && queue.size() <= hwm / 2 && resumeAsked.compareAndSet(false, true)) {
                    socket.inLoop(this::resume);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            out.flush();
        }
    }

    /** Prints what is left and stops (the socket is closed, nothing more comes). */
    void close() {
        queue.add(end);
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
