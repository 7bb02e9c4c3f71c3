package io.zmtp.security;

import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * Decides whether a client may connect: the application's side of a server mechanism, in the
 * role libzmq gives a ZAP handler (27/ZAP).
 *
 * <p>It is asked once per connection with an {@link AuthRequest} carrying what a ZAP request
 * does (domain, address, routing id, mechanism, credentials), and answers
 * {@link AuthResult#allow} with the user id (and properties) that messages from that client will
 * carry, or {@link AuthResult#deny} with a ZAP status code. A client denied with 400 or 500
 * receives ZMTP ERROR with that code (the connection then closes, and a well-behaved client does
 * not retry with the same credentials); one denied with 300 (temporary failure) is closed without
 * ERROR and retries, as libzmq does.
 *
 * <p><b>Answering now or later.</b> {@link #authenticate} answers at once, on the connection's
 * event loop: it must not block. An authenticator that asks a database, a directory or a key
 * service answers later instead: override {@link #authenticateAsync} (or make one with
 * {@link #async}). The handshake then waits without blocking the loop: reading from that client
 * pauses, and the wait ends with the answer, with status 300 after
 * {@code ZmtpOptions.authenticationTimeout()} (10 s by default), or when the client goes. At most
 * {@code AuthenticationWaits} handshakes of one socket wait at once (1024 by default); a client
 * beyond that is refused at once with 300.
 *
 * <p><b>Threading:</b> both methods are called on a connection's event loop, for connections of
 * several sockets at once: they must be thread-safe. An exception thrown by them, or a stage
 * completed exceptionally, refuses the client with status {@code "500"}.
 */
@FunctionalInterface
public interface Authenticator {

    /** Answers at once (event loop: never block). */
    AuthResult authenticate(AuthRequest request);

    /**
     * Answers now or later: the stage may complete on any thread. The default answers
     * {@link #authenticate} at once.
     */
    default CompletionStage<AuthResult> authenticateAsync(AuthRequest request) {
        return CompletableFuture.completedFuture(authenticate(request));
    }

    /**
     * An authenticator that answers later: {@code lookup} starts the question (it must return
     * quickly, for example by handing it to a client library's asynchronous call or to an
     * executor of its own) and completes the stage with the answer from any thread. Its
     * {@link #authenticate} waits for the answer, for callers off the event loops only.
     */
    static Authenticator async(Function<AuthRequest, ? extends CompletionStage<AuthResult>> lookup) {
        Objects.requireNonNull(lookup, "lookup");
        return new Authenticator() {
            @Override
            public AuthResult authenticate(AuthRequest request) {
                return authenticateAsync(request).toCompletableFuture().join();
            }

            @Override
            @SuppressWarnings("unchecked")
            public CompletionStage<AuthResult> authenticateAsync(AuthRequest request) {
                return (CompletionStage<AuthResult>) lookup.apply(request);
            }

            @Override
            public String toString() {
                return "Authenticator.async(" + lookup + ")";
            }
        };
    }

    /**
     * Accepts every client. The user id is the PLAIN user name, or the CURVE client's public key in
     * Z85, or none for NULL. For tests and for CURVE servers that only want encryption; note that
     * a PLAIN server that accepts every credential authenticates no one.
     */
    static Authenticator allowAll() {
        return request -> AuthResult.allow("PLAIN".equals(request.mechanism()) ? request.username()
                : request.clientPublicKeyZ85());
    }

    /** PLAIN accounts: user name to password. See {@link PlainAccounts}. */
    static Authenticator plainAccounts(Map<String, String> passwords) {
        return PlainAccounts.of(passwords);
    }

    /** CURVE clients whose long-term public keys are listed. See {@link CurveAllowList}. */
    static Authenticator curveAllowList(Collection<byte[]> publicKeys) {
        return CurveAllowList.of(publicKeys);
    }
}
