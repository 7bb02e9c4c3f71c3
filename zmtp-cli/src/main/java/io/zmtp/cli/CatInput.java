package io.zmtp.cli;

import io.netty.util.concurrent.Future;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.Semaphore;

/**
 * {@code zmtp cat}'s stdin, on a thread of its own: each line is parsed into a message
 * ({@link MessageLines}, or {@link SingleFrameLines} for the thread-safe types) and handed to the socket, at most {@code hwm} in flight, so a send waits
 * for a peer as a ZeroMQ queue does. The socket type's send rule decides when the next line may
 * go ({@link ZmtpSocket#whenSendAllowed}: a REQ once the reply to the last one came, a REP once a
 * request waits for its answer); a ROUTER line waits for the peer it names ({@link RouterLines}).
 */
final class CatInput implements Runnable {
    /** What the input thread tells the run; any thread may call these. */
    interface Run {
        /** Whether the run has ended (the input stops reading). */
        boolean over();

        void printErr(String line);

        /** The input could not be read: the run ends with a failure. */
        void inputFailed();

        /** Every line was taken (or failed). */
        void inputEnded();

        /** A REP's answer went out: the next request may be received. */
        void answered();
    }

    private static final Logger log = LoggerFactory.getLogger(CatInput.class);

    private final Run run;
    private final InputStream in;
    private final MessageLines lines;
    private final LineFormat format;
    private final SocketType type;
    private final ZmtpSocket socket;
    private final RouterLines routerLines;
    private final int hwm;
    private final Semaphore inFlight;
    private boolean hexHintGiven;

    /**
     * @param lines the frames' format (its mode gives the hint about typed hex)
     * @param format how a line becomes a message: {@code lines}, or the thread-safe types' form
     * @param routerLines the ROUTER's waiting lines (null for other types)
     */
    CatInput(Run run, InputStream in, MessageLines lines, LineFormat format, SocketType type, ZmtpSocket socket,
            RouterLines routerLines, int hwm) {
        this.run = run;
        this.in = in;
        this.lines = lines;
        this.format = format;
        this.type = type;
        this.socket = socket;
        this.routerLines = routerLines;
        this.hwm = hwm;
        this.inFlight = new Semaphore(hwm);
    }

    @Override
    public void run() {
        try (InputStream input = in) {
            InputLines r = new InputLines(input);
            long number = 0;
            while (!run.over() && r.next()) {
                number++;
                ZmtpMessage m;
                try {
                    m = format.parse(r.line, 0, r.length);
                } catch (IllegalArgumentException e) {
                    run.printErr("input line " + number + " not sent: " + e.getMessage());
                    continue;
                }
                if (type == SocketType.ROUTER && m.size() < 2) {
                    m.release();
                    run.printErr("input line " + number + " not sent: a ROUTER line is the routing id of a peer, "
                            + "then the frames to send it");
                    continue;
                }
                if (lines.mode() == MessageLines.Mode.TEXT && !hexHintGiven && lines.looksLikeHex(m)) {
                    hexHintGiven = true;
                    run.printErr("note: input frames are sent as typed; 0x... is sent as text (--0x reads it as hex)");
                }
                if (!send(m)) {
                    return; // the socket closed: the run is over
                }
            }
            inFlight.acquire(hwm); // everything read has been taken by a peer (or failed)
            if (type == SocketType.REQ && !sendAllowed()) {
                return; // the socket closed before the reply to the last line
            }
        } catch (InterruptedException e) {
            return; // the run is over
        } catch (IOException e) {
            log.warn("cannot read the input: {}", e.toString());
            run.inputFailed();
            return;
        }
        run.inputEnded();
    }

    /**
     * Sends one line once the socket's state allows it and a slot of {@code hwm} is free. False
     * if the socket closed meanwhile.
     */
    private boolean send(ZmtpMessage m) throws InterruptedException {
        try {
            if (!sendAllowed()) {
                m.release();
                return false;
            }
            inFlight.acquire();
        } catch (InterruptedException e) {
            m.release();
            throw e;
        }
        Future<Void> sent = routerLines != null ? routerLines.send(m) : socket.send(m);
        sent.addListener(f -> {
            inFlight.release();
            if (!f.isSuccess()) {
                run.printErr("not sent: " + CommandSupport.reason(f.cause()));
            }
            if (type == SocketType.REP) {
                run.answered();
            }
        });
        return true;
    }

    /** Waits until the socket's state allows a send; false if it closed first. */
    private boolean sendAllowed() throws InterruptedException {
        return socket.whenSendAllowed().await().isSuccess();
    }
}
