package io.zmtp.patterns.majordomo;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A reply a client received: the service that answered, the body frames (copies, owned by the
 * caller), and whether it is the final reply to its request. Under MDP/0.1 every reply is final;
 * under MDP/0.2 a request gets zero or more partial replies and then one final reply.
 */
public final class MajordomoReply {
    private final String service;
    private final List<byte[]> body;
    private final boolean fin;

    public MajordomoReply(String service, List<byte[]> body, boolean fin) {
        this.service = service;
        this.body = Collections.unmodifiableList(body);
        this.fin = fin;
    }

    /** The service named in the reply. */
    public String service() {
        return service;
    }

    /** The body frames. */
    public List<byte[]> body() {
        return body;
    }

    /** The body frames decoded as UTF-8. */
    public List<String> bodyStrings() {
        List<String> l = new ArrayList<>(body.size());
        for (byte[] f : body) {
            l.add(new String(f, StandardCharsets.UTF_8));
        }
        return l;
    }

    /** Whether this is the last reply to its request (FINAL in 0.2, REPLY in 0.1). */
    public boolean isFinal() {
        return fin;
    }

    /**
     * Whether this is the broker's refusal of the request ({@link MdpProtocol#REFUSED} and a
     * reason as the body) rather than a worker's reply.
     */
    public boolean isRefused() {
        return fin && body.size() == 2 && java.util.Arrays.equals(body.get(0), REFUSED_BYTES);
    }

    /** The reason the broker gave for refusing the request, or null if {@link #isRefused()} is false. */
    public String refusalReason() {
        return isRefused() ? new String(body.get(1), StandardCharsets.UTF_8) : null;
    }

    private static final byte[] REFUSED_BYTES = MdpProtocol.REFUSED.getBytes(StandardCharsets.US_ASCII);

    @Override
    public String toString() {
        return (fin ? "FINAL " : "PARTIAL ") + service + " " + bodyStrings();
    }
}
