package io.zmtp.socket;

/**
 * Why a socket stops reading from its peers ({@link ReceivePath#pause}). Each reason is
 * set and cleared by its owner alone; reading resumes once no reason is left, so no owner undoes
 * another's pause.
 */
enum ReadPause {
    /** The application asked to pause ({@link ZmtpSocket#pauseReceiving}). */
    APPLICATION,
    /** Messages wait for a handler to be set. */
    UNDELIVERED,
    /** The socket type holds messages of its own past the receive limit (REP's waiting requests). */
    TYPE_QUEUE,
    /** A consumer on another thread (a {@link BlockingSocket}'s) is behind. */
    CONSUMER;

    final int bit = 1 << ordinal();
}
