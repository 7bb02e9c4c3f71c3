package io.zmtp.patterns.majordomo;

import io.zmtp.wire.ZmtpMessage;

/**
 * Sees every message a Majordomo component sends or receives, as the guide's {@code -v} option
 * prints them. Called on the component's event loop, before a send (the message still belongs to
 * the caller): read it, never keep or release it, and never block.
 */
@FunctionalInterface
public interface MessageTracer {
    /**
     * @param what a line saying what happens, as the guide's trace does ("I: received message:",
     *             "I: sending REQUEST to worker")
     * @param message the frames, routing-id frame included where there is one
     */
    void trace(String what, ZmtpMessage message);

    /** A tracer that prints each message with {@link MessageDump} to standard output. */
    static MessageTracer printing(java.io.PrintStream out) {
        return (what, message) -> {
            String dump = MessageDump.format(message);
            synchronized (out) {
                out.println(what);
                out.print(dump);
                out.flush();
            }
        };
    }
}
