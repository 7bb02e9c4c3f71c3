package io.zmtp.transport;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketVersion;
import io.zmtp.wire.ZmtpCodec;
import io.zmtp.wire.ZmtpOptions;

import java.net.URI;

/**
 * The handlers that put ZMTP on WebSocket (ZWS 2.0) in a pipeline, before a {@link ZmtpCodec}:
 * Netty's HTTP codec for the upgrade, its WebSocket protocol handler, and a {@link ZwsBridge}.
 * Sockets use them for ws:// and wss:// (wss:// puts an {@code SslHandler} first); an application
 * with its own bootstrap can use them the same way.
 *
 * <p>Limits: the upgrade request or response may hold at most {@link #MAX_HTTP_MESSAGE} bytes
 * of headers and body; a WebSocket message at most the codec's {@code maxMessageSize} plus the
 * flags byte (Netty's decoder holds one such message while it arrives, before the socket's
 * inbound budget sees it); the whole upgrade and ZMTP handshake must end within the codec's
 * {@code handshakeTimeout}.
 */
public final class WebSocketTransport {
    /** The largest HTTP upgrade request or response, headers and body (8 KiB). */
    public static final int MAX_HTTP_MESSAGE = 8192;

    private WebSocketTransport() {
    }

    /** The subprotocols a server offers for {@code options}' mechanism. */
    public static String serverSubprotocols(ZmtpOptions options) {
        return ZwsBridge.subprotocols(options);
    }

    /** The largest WebSocket payload accepted: a frame of {@code maxMessageSize} plus its flags byte. */
    public static int maxFramePayload(ZmtpOptions options) {
        long max = options.maxMessageSize();
        return max < 0 || max >= Integer.MAX_VALUE - 1 ? Integer.MAX_VALUE : (int) max + 1;
    }

    /**
     * The client side: adds the HTTP codec, the WebSocket handshake for {@code uri}
     * ({@code ws://host:port/path}) offering the subprotocols of {@code options}' mechanism, and
     * the bridge. Add the {@link ZmtpCodec} (made with the same options) after them.
     */
    public static void addClientHandlers(ChannelPipeline p, URI uri, ZmtpOptions options) {
        WebSocketClientProtocolConfig config = WebSocketClientProtocolConfig.newBuilder()
                .webSocketUri(uri)
                .subprotocol(ZwsBridge.subprotocols(options))
                .version(WebSocketVersion.V13)
                .allowExtensions(false)
                .maxFramePayloadLength(maxFramePayload(options))
                .handshakeTimeoutMillis(options.handshakeTimeout().toMillis())
                .handleCloseFrames(true)
                .dropPongFrames(true)
                .build();
        p.addLast(new HttpClientCodec(4096, MAX_HTTP_MESSAGE, MAX_HTTP_MESSAGE),
                new HttpObjectAggregator(MAX_HTTP_MESSAGE),
                new WebSocketClientProtocolHandler(config),
                new ZwsBridge(options));
    }

    /**
     * The server side for one path: adds the HTTP codec and {@link #addUpgradeHandlers}. A request
     * for another path, or one that is not an upgrade, is answered 404 by the bridge.
     */
    public static void addServerHandlers(ChannelPipeline p, String path, ZmtpOptions options) {
        p.addLast(new HttpServerCodec(4096, MAX_HTTP_MESSAGE, MAX_HTTP_MESSAGE),
                new HttpObjectAggregator(MAX_HTTP_MESSAGE));
        addUpgradeHandlers(p, path, options);
    }

    /**
     * After an HTTP server codec and aggregator: the WebSocket handshake for {@code path}
     * (exactly; a query string is ignored), offering the subprotocols of {@code options}'
     * mechanism, and the bridge.
     */
    public static void addUpgradeHandlers(ChannelPipeline p, String path, ZmtpOptions options) {
        WebSocketServerProtocolConfig config = WebSocketServerProtocolConfig.newBuilder()
                .websocketPath(path)
                .subprotocols(ZwsBridge.subprotocols(options))
                .checkStartsWith(false)
                .handshakeTimeoutMillis(options.handshakeTimeout().toMillis())
                .handleCloseFrames(true)
                .dropPongFrames(true)
                .decoderConfig(WebSocketDecoderConfig.newBuilder()
                        .maxFramePayloadLength(maxFramePayload(options))
                        .expectMaskedFrames(true)
                        .allowMaskMismatch(false)
                        .allowExtensions(false)
                        .build())
                .build();
        p.addLast(new WebSocketServerProtocolHandler(config), new ZwsBridge(options));
    }
}
