package io.zmtp.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.zmtp.wire.FrameText;
import io.zmtp.wire.PeerFailureLog;
import io.zmtp.wire.TransportUserId;

import javax.net.ssl.SSLPeerUnverifiedException;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;

/**
 * After an {@link SslHandler}: once the TLS handshake succeeds, puts the subject of the peer's
 * certificate (RFC 2253 form) in {@link TransportUserId#KEY}, from where the ZMTP codec reports it
 * as the peer's User-Id; a peer without a certificate (client authentication not required) has
 * none. A failed TLS handshake is logged once (rate-limited, the reason escaped) and the
 * connection closed (it stays in the pipeline: in TLS 1.3 a client learns that the server
 * refused its certificate only after its own handshake completed).
 */
public final class TlsPeerIdentity extends ChannelInboundHandlerAdapter {
    private static final PeerFailureLog log = PeerFailureLog.get(TlsPeerIdentity.class);
    private boolean failed;

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent) {
            SslHandshakeCompletionEvent e = (SslHandshakeCompletionEvent) evt;
            if (e.isSuccess()) {
                SslHandler ssl = ctx.pipeline().get(SslHandler.class);
                String subject = ssl == null ? null : subject(ssl);
                if (subject != null) {
                    ctx.channel().attr(TransportUserId.KEY).set(subject);
                }
            } else {
                failed = true;
                log.warn("{} TLS handshake failed: {}", ctx.channel(), FrameText.escape(String.valueOf(e.cause())));
            }
        }
        ctx.fireUserEventTriggered(evt);
    }

    /** After a failed handshake SslHandler reports the same failure as an exception: logged once above. */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (failed || cause instanceof javax.net.ssl.SSLException || cause.getCause() instanceof javax.net.ssl.SSLException) {
            if (!failed) {
                log.warn("{} TLS failed: {}", ctx.channel(), FrameText.escape(String.valueOf(cause.getCause() != null ? cause.getCause() : cause)));
            }
            failed = true;
            ctx.close();
            return;
        }
        ctx.fireExceptionCaught(cause);
    }

    /** The subject of the peer's certificate, or null when it presented none. */
    static String subject(SslHandler ssl) {
        try {
            Certificate[] chain = ssl.engine().getSession().getPeerCertificates();
            if (chain.length > 0 && chain[0] instanceof X509Certificate) {
                return ((X509Certificate) chain[0]).getSubjectX500Principal().getName();
            }
        } catch (SSLPeerUnverifiedException e) {
            // no client certificate
        }
        return null;
    }
}
