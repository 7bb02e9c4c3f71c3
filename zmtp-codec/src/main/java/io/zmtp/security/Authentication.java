package io.zmtp.security;

import io.zmtp.wire.FrameText;
import io.zmtp.wire.HandshakeSession;
import io.zmtp.wire.ZmtpMetadata;
import io.zmtp.wire.ZmtpProtocolException;


/**
 * One handshake's question to its {@link Authenticator}, shared by the server side of NULL, PLAIN
 * and CURVE: asks now or later, waits through {@link HandshakeSession#await} (reading paused,
 * bounded per socket, timed), and refuses as libzmq does: 400 and 500 with ZMTP ERROR carrying
 * the code, 300 (temporary failure: also a timeout, or too many handshakes waiting) by closing
 * without ERROR so the client retries.
 */
final class Authentication {

    /** What the mechanism does with an allowed client, on the connection's event loop. */
    @FunctionalInterface
    interface Allowed {
        void accept(AuthResult result) throws ZmtpProtocolException;
    }

    private Authentication() {
    }

    /**
     * Asks {@code authenticator} about {@code request}; {@code allowed} runs once it lets the
     * client in. The caller returns right after this and does nothing more for the handshake: the
     * answer may come during this call or later.
     */
    static void ask(HandshakeSession session, Authenticator authenticator, AuthRequest request, Allowed allowed) {
        boolean waiting;
        try {
            waiting = session.await(() -> authenticator.authenticateAsync(request), (result, failure) -> {
                request.wipe();
                answered(session, request, result, failure, allowed);
            }, () -> {
                request.wipe();
                refuse(session, request, "300", "no answer from the authenticator within the authentication timeout");
            });
        } catch (RuntimeException e) {
            request.wipe();
            broken(session, request, "the authenticator failed: " + FrameText.escape(e.toString(), 256));
            return;
        }
        if (!waiting) {
            request.wipe();
            refuse(session, request, "300", "too many handshakes of this socket wait for the authenticator");
        }
    }

    private static void answered(HandshakeSession session, AuthRequest request, AuthResult result, Throwable failure,
                                 Allowed allowed) {
        if (failure != null) {
            broken(session, request, "the authenticator failed: " + FrameText.escape(failure.toString(), 256));
        } else if (result == null) {
            broken(session, request, "the authenticator answered null");
        } else if (!result.isAllowed()) {
            refuse(session, request, result.statusCode(), FrameText.escape(result.reason(), 256));
        } else {
            try {
                allowed.accept(result);
            } catch (ZmtpProtocolException e) {
                session.fail(e);
            } catch (RuntimeException e) {
                session.fail(request.mechanism() + " handshake failed after the authenticator's answer: "
                        + FrameText.escape(e.toString(), 256), null, false);
            }
        }
    }

    /**
     * Closes the connection of a refused client: with ERROR carrying the status code, except for
     * 300, which (as in libzmq and 26/CURVEZMQ) closes silently so the client tries again later.
     */
    private static void refuse(HandshakeSession session, AuthRequest request, String statusCode, String why) {
        session.fail(request.mechanism() + " client refused (" + statusCode + "): " + request + ": " + why,
                statusCode.equals("300") ? null : statusCode, true);
    }

    /**
     * The authenticator failed (threw, answered null or failed its stage): 500 with ERROR, as a
     * handshake failure of ours rather than a refusal of the client's credentials.
     */
    private static void broken(HandshakeSession session, AuthRequest request, String why) {
        session.fail(request.mechanism() + " handshake: " + request + ": " + why, "500", false);
    }

    /** The client's announced properties with the authenticator's added (they win on a clash, as in libzmq). */
    static ZmtpMetadata withProperties(ZmtpMetadata peer, AuthResult result) {
        return result.properties().isEmpty() ? peer : peer.toBuilder().putAll(result.properties()).build();
    }
}
