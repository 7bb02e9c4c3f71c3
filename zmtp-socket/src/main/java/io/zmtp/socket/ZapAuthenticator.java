package io.zmtp.socket;

import io.zmtp.security.AuthRequest;
import io.zmtp.security.AuthResult;
import io.zmtp.security.Authenticator;
import io.zmtp.wire.Frames;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMetadata;
import io.zmtp.wire.ZmtpProtocolException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An {@link Authenticator} that puts each request to the context's ZAP handler as the 27/ZAP
 * message and waits for its reply, so a handler written from the RFC (or for libzmq: pyzmq's
 * {@code zmq.auth}, CZMQ's {@code zauth}, JeroMQ's {@code ZAuth}) works unchanged. The handler
 * is a REP or ROUTER socket of the same context bound at {@link #ENDPOINT}.
 *
 * <p>The request is {@code ["", "1.0", request id, domain, address, routing id, mechanism,
 * credentials...]} exactly as libzmq 4.3 sends it (address: the client's numeric IP; routing id:
 * the server socket's own; credentials: PLAIN's user name and password, CURVE's 32-byte key, none
 * for NULL), with one difference: libzmq opens a pipe per connection and always sends request id
 * "1", while this sends all requests of a context through one DEALER and numbers them 1, 2, 3...
 * so that replies find their handshakes. The reply must be the seven frames of 27/ZAP with status
 * 200, 300, 400 or 500; another is malformed, logged, and refuses the client as 300 would (closed
 * without ERROR, as libzmq closes on a malformed reply). The reply's metadata frame reaches the
 * client's messages as properties, and its user id (even an empty one) as {@code User-Id}.
 *
 * <p><b>No handler bound</b> (checked at each request), as libzmq 4.3 with ZMQ_ZAP_ENFORCE_DOMAIN
 * off: a NULL or CURVE client is let in without a user id (CURVE then only encrypts), a PLAIN
 * client is refused by closing without ERROR.
 */
public final class ZapAuthenticator implements Authenticator {
    /** Where the ZAP handler binds: {@value}. */
    public static final String ENDPOINT = "inproc://zeromq.zap.01";
    private static final String NAME = "zeromq.zap.01";
    private static final byte[] VERSION = "1.0".getBytes(StandardCharsets.US_ASCII);
    private static final Logger log = LoggerFactory.getLogger(ZapAuthenticator.class);

    /**
     * The DEALER that talks to the handler. The handshakes' own bound and timeout limit what waits
     * here, so the pipe to the handler has no high-water mark to speak of (libzmq disables it on
     * the ZAP pipe).
     */
    static final SocketOptions DEALER_OPTIONS = SocketOptions.builder().sendHwm(1 << 20)
            .receiveHwm(1 << 20).linger(Duration.ZERO).build();

    private final InprocRegistry inproc;
    private final ZmtpSocket dealer;
    private final AtomicLong nextId = new AtomicLong(1);
    private final Map<String, CompletableFuture<AuthResult>> waiting = new ConcurrentHashMap<>();

    /**
     * @param dealer a new DEALER of the context, whose options {@link #DEALER_OPTIONS} are
     * @param inproc the context's inproc:// names, where the handler binds
     */
    ZapAuthenticator(ZmtpSocket dealer, InprocRegistry inproc) {
        this.inproc = inproc;
        this.dealer = dealer;
        dealer.onMessage(MessageHandler.ofFrames(this::reply));
        dealer.connect(ENDPOINT);
    }

    @Override
    public AuthResult authenticate(AuthRequest request) {
        return authenticateAsync(request).toCompletableFuture().join();
    }

    @Override
    public CompletionStage<AuthResult> authenticateAsync(AuthRequest request) {
        if (!inproc.isBound(NAME)) {
            if (request.mechanism().equals("PLAIN")) {
                return CompletableFuture.completedFuture(AuthResult.deny("300",
                        "no ZAP handler is bound at " + ENDPOINT + " (libzmq refuses PLAIN clients then)"));
            }
            return CompletableFuture.completedFuture(AuthResult.allow());
        }
        String id = Long.toString(nextId.getAndIncrement());
        CompletableFuture<AuthResult> answer = new CompletableFuture<>();
        waiting.put(id, answer);
        // a handshake that stops waiting (timeout, client gone) cancels its answer: forget it
        answer.whenComplete((r, e) -> waiting.remove(id));
        dealer.send(request(request, id).toMessage());
        return answer;
    }

    /** The 27/ZAP request frames for {@code request}, with request id {@code id}. */
    static Frames request(AuthRequest request, String id) {
        List<byte[]> f = new ArrayList<>();
        f.add(new byte[0]);
        f.add(VERSION);
        f.add(id.getBytes(StandardCharsets.US_ASCII));
        f.add(request.domain().getBytes(StandardCharsets.UTF_8));
        f.add(request.address().getBytes(StandardCharsets.UTF_8));
        f.add(request.routingId());
        f.add(request.mechanism().getBytes(StandardCharsets.US_ASCII));
        f.addAll(request.credentials());
        return Frames.of(f);
    }

    private void reply(Frames frames) {
        String id = frames.size() > 2 ? new String(frames.frame(2), StandardCharsets.US_ASCII) : null;
        CompletableFuture<AuthResult> answer = id == null ? null : waiting.get(id);
        if (answer == null) {
            log.warn("ZAP reply of {} frames for no waiting request (id {}): dropped", frames.size(),
                    id == null ? "none" : io.zmtp.wire.FrameText.escape(id));
            return;
        }
        AuthResult result;
        try {
            result = parse(frames);
        } catch (ZmtpProtocolException e) {
            log.warn("malformed ZAP reply to request {}: {}", id, e.getMessage());
            result = AuthResult.deny("300", "malformed ZAP reply: " + e.getMessage());
        }
        answer.complete(result);
    }

    /** A 27/ZAP reply, checked as libzmq checks it. */
    static AuthResult parse(Frames f) throws ZmtpProtocolException {
        if (f.size() != 7) {
            throw new ZmtpProtocolException(f.size() + " frames, not 7");
        }
        if (f.frame(0).length != 0) {
            throw new ZmtpProtocolException("the first frame is not the empty delimiter");
        }
        if (!java.util.Arrays.equals(f.frame(1), VERSION)) {
            throw new ZmtpProtocolException("version is not 1.0");
        }
        String status = new String(f.frame(3), StandardCharsets.US_ASCII);
        if (!status.equals("200") && !status.equals("300") && !status.equals("400") && !status.equals("500")) {
            throw new ZmtpProtocolException("status code " + io.zmtp.wire.FrameText.escape(status)
                    + " is not 200, 300, 400 or 500");
        }
        String text = new String(f.frame(4), StandardCharsets.UTF_8);
        ZmtpMetadata properties = ZmtpMetadata.decode(io.netty.buffer.Unpooled.wrappedBuffer(f.frame(6)));
        if (!status.equals("200")) {
            return AuthResult.deny(status, "ZAP handler: " + text);
        }
        return AuthResult.allow(new String(f.frame(5), StandardCharsets.UTF_8), properties);
    }

    @Override
    public String toString() {
        return "ZapAuthenticator{" + ENDPOINT + ", " + waiting.size() + " waiting}";
    }
}
