package io.zmtp.transport;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;

import java.time.Duration;
import java.util.Objects;

/**
 * TLS for tls:// and wss:// endpoints (set with {@code SocketOptions.Builder.tls}): Netty
 * {@link SslContext}s built by the application with {@code SslContextBuilder}, which is where the
 * server's certificate and key, the client certificate, trusted certificates and client
 * authentication ({@code clientAuth(ClientAuth.REQUIRE)} for mutual TLS) are set.
 *
 * <p>A client sends the endpoint's host name (or {@link #withServerName}) as SNI, and Netty 4.2
 * client contexts check the server's certificate against that name by default
 * ({@code SslContextBuilder.endpointIdentificationAlgorithm(null)} turns the check off). When the peer presented a certificate, its subject (RFC 2253 form)
 * becomes the peer's User-Id in message properties on tls:// and wss://, unless the ZMTP
 * mechanism (PLAIN, CURVE) names a user itself.
 */
public final class TlsSettings {
    private final SslContext server;
    private final SslContext client;
    private final String serverName;

    private TlsSettings(SslContext server, SslContext client, String serverName) {
        this.server = server;
        this.client = client;
        this.serverName = serverName;
    }

    /** For a socket that binds: the server's context (certificate, key, client authentication). */
    public static TlsSettings server(SslContext server) {
        return of(Objects.requireNonNull(server, "server"), null);
    }

    /** For a socket that connects: the client's context (trust, and its certificate for mutual TLS). */
    public static TlsSettings client(SslContext client) {
        return of(null, Objects.requireNonNull(client, "client"));
    }

    /** Both: a socket that binds some endpoints and connects others. Either may be null. */
    public static TlsSettings of(SslContext server, SslContext client) {
        if (server != null && !server.isServer()) {
            throw new IllegalArgumentException("the server context is a client context");
        }
        if (client != null && !client.isClient()) {
            throw new IllegalArgumentException("the client context is a server context");
        }
        return new TlsSettings(server, client, null);
    }

    /** The name a client expects in the server's certificate and sends as SNI, instead of the endpoint's host. */
    public TlsSettings withServerName(String name) {
        return new TlsSettings(server, client, Objects.requireNonNull(name));
    }

    public SslContext serverContext() {
        return server;
    }

    public SslContext clientContext() {
        return client;
    }

    /** A server-side handler; {@code handshakeTimeout} bounds the TLS handshake. */
    public SslHandler newServerHandler(ByteBufAllocator alloc, Duration handshakeTimeout) {
        if (server == null) {
            throw new IllegalStateException("binding a tls:// or wss:// endpoint needs TlsSettings with a server context");
        }
        SslHandler h = server.newHandler(alloc);
        h.setHandshakeTimeoutMillis(handshakeTimeout.toMillis());
        return h;
    }

    /** A client-side handler for {@code host}:{@code port}. */
    public SslHandler newClientHandler(ByteBufAllocator alloc, String host, int port, Duration handshakeTimeout) {
        if (client == null) {
            throw new IllegalStateException("connecting to a tls:// or wss:// endpoint needs TlsSettings with a client context");
        }
        String name = serverName != null ? serverName : host;
        SslHandler h = client.newHandler(alloc, name, port);
        h.setHandshakeTimeoutMillis(handshakeTimeout.toMillis());
        return h;
    }

    @Override
    public String toString() {
        return "TlsSettings[server=" + (server != null) + ", client=" + (client != null)
                + (serverName != null ? ", serverName=" + serverName : "") + "]";
    }
}
