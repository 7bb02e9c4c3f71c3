package io.zmtp.patterns.majordomo;

import io.zmtp.wire.Frames;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * A reply a client received: the service that answered, the body frames (copies, owned by the
 * caller), and whether it is the final reply to its request. Under MDP/0.1 every reply is final;
 * under MDP/0.2 a request gets zero or more partial replies and then one final reply.
 */
public final class MajordomoReply {
    private final String service;
    private final Frames body;
    private final boolean fin;

    public MajordomoReply(String service, Frames body, boolean fin) {
        this.service = service;
        this.body = body;
        this.fin = fin;
    }

    /** The service named in the reply. */
    public String service() {
        return service;
    }

    /** The body frames. */
    public Frames body() {
        return body;
    }

    /** The body frames decoded as UTF-8. */
    public List<String> bodyStrings() {
        return body.toStrings();
    }

    /** Whether this is the last reply to its request (FINAL in 0.2, REPLY in 0.1). */
    public boolean isFinal() {
        return fin;
    }

    /**
     * Whether this is the broker's refusal of the request ({@link MmiService#MMI_REFUSED} and a
     * reason as the body) rather than a worker's reply.
     */
    public boolean isRefused() {
        return fin && body.size() == 2 && Arrays.equals(body.frame(0), REFUSED_BYTES);
    }

    /** The reason the broker gave for refusing the request, or null if {@link #isRefused()} is false. */
    public String refusalReason() {
        return isRefused() ? body.frameString(1) : null;
    }

    private static final byte[] REFUSED_BYTES = MmiService.MMI_REFUSED.getBytes(StandardCharsets.US_ASCII);

    @Override
    public String toString() {
        return (fin ? "FINAL " : "PARTIAL ") + service + " " + bodyStrings();
    }
}
