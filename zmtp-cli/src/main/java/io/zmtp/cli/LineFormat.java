package io.zmtp.cli;

import io.zmtp.wire.ZmtpMessage;

/**
 * How {@code zmtp cat} reads an input line as a message and prints a message as a line:
 * {@link MessageLines} for the multipart types, {@link SingleFrameLines} for the thread-safe
 * ones, whose lines carry a routing id or a group in front of the one frame.
 */
interface LineFormat {
    /**
     * The message of one input line {@code line[from, to)}, without its line break. Throws
     * IllegalArgumentException, having made nothing, when the line is not what the format reads.
     */
    ZmtpMessage parse(byte[] line, int from, int to);

    /** The line of a message, without a line break (the message stays the caller's). */
    String format(ZmtpMessage m);
}
