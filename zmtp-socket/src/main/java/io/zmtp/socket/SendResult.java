package io.zmtp.socket;

/** What a socket type did with a message handed to it. */
enum SendResult {
    /** Written to one or more peers (ownership passed). */
    SENT,
    /** Deliberately dropped and released (PUB at a subscriber's mark, ROUTER unroutable). */
    DROPPED,
    /** No peer can take it now; the caller still owns the message. */
    WOULD_BLOCK
}
