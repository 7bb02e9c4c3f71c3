package io.zmtp.patterns.kit;

import io.zmtp.wire.ZmtpMessage;

/**
 * What a message on the socket of a {@link RetryingRequester}'s current try means, as its owner
 * judges it (the owner knows its protocol): the reply to a request, a partial reply that restarts
 * the try's timeout, or something to drop. With several requests in flight, a verdict names the
 * key of the request it answers (Majordomo: the service, as MDP has no request id).
 *
 * @param <T> the reply as the owner gives it (the message itself, say)
 */
@FunctionalInterface
public interface ReplyJudge<T> {
    /**
     * Judges {@code msg}, which it owns: a {@link Verdict#done} reply holds it (or a value made
     * from it), otherwise it is released here.
     */
    Verdict<T> judge(ZmtpMessage msg);

    /**
     * The meaning of a message: the reply, a partial reply, or something to drop. The key names
     * the request answered (the oldest in flight submitted with an equal key); null = the oldest
     * in flight.
     */
    sealed interface Verdict<T> {
        /** The reply: the request is done. */
        record Done<T>(T reply, Object key) implements Verdict<T> {
        }

        /**
         * A partial reply (Majordomo 0.2): the try's timeout starts again; {@code value} (may be
         * null) goes to the request's partial-reply listener.
         */
        record Partial<T>(T value, Object key) implements Verdict<T> {
        }

        /** Not an answer to the request: dropped. */
        record Discard<T>(String reason) implements Verdict<T> {
        }

        static <T> Verdict<T> done(T reply) {
            return new Done<>(reply, null);
        }

        /** The reply to the oldest request in flight submitted with a key equal to {@code key}. */
        static <T> Verdict<T> done(Object key, T reply) {
            return new Done<>(reply, key);
        }

        static <T> Verdict<T> partial() {
            return new Partial<>(null, null);
        }

        /** A partial reply to the oldest request in flight with {@code key}; {@code value} to its listener. */
        static <T> Verdict<T> partial(Object key, T value) {
            return new Partial<>(value, key);
        }

        static <T> Verdict<T> discard(String reason) {
            return new Discard<>(reason);
        }
    }
}
