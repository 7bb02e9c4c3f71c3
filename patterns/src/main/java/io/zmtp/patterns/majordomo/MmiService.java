package io.zmtp.patterns.majordomo;

import java.util.function.ToIntFunction;

/**
 * The Majordomo Management Interface (8/MMI): the services of the {@code mmi.} namespace, which
 * the broker answers itself instead of routing them to workers. The answer goes back as an
 * ordinary MDP reply (REPLY in 0.1, FINAL in 0.2) naming the {@code mmi.} service, with the
 * code as its one body frame:
 * <ul>
 *   <li>{@code mmi.service}: the request body names a service; "200" if at least one worker is
 *       registered for it, "404" otherwise;</li>
 *   <li>any other {@code mmi.} service: "501" (not implemented).</li>
 * </ul>
 * A worker that tries to register an {@code mmi.} service is disconnected by the broker.
 */
public final class MmiService {
    /** The namespace the broker serves itself. */
    public static final String MMI_PREFIX = "mmi.";
    /** Service discovery: the body names a service; the answer is "200" or "404". */
    public static final String MMI_SERVICE = "mmi.service";
    public static final String MMI_FOUND = "200";
    public static final String MMI_NOT_FOUND = "404";
    public static final String MMI_NOT_IMPLEMENTED = "501";
    /**
     * Not an 8/MMI service: the first body frame of the broker's answer to a request it refused
     * ({@link MdpProtocol#REFUSED}), named in the namespace no worker may register.
     */
    public static final String MMI_REFUSED = "mmi.refused";

    private MmiService() {
    }

    /** Whether the broker answers {@code service} itself. */
    public static boolean isInternal(String service) {
        return service.startsWith(MMI_PREFIX);
    }

    /**
     * The code answering a request to the internal service {@code service} whose first body frame
     * is {@code argument}; {@code workersOf} counts the workers registered for a service name.
     */
    public static String answer(String service, String argument, ToIntFunction<String> workersOf) {
        if (MMI_SERVICE.equals(service)) {
            return workersOf.applyAsInt(argument) > 0 ? MMI_FOUND : MMI_NOT_FOUND;
        }
        return MMI_NOT_IMPLEMENTED;
    }
}
