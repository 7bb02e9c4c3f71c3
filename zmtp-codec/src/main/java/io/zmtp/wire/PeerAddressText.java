package io.zmtp.wire;

import io.netty.channel.Channel;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;

import java.net.SocketAddress;

/**
 * A connection's remote address as text, made once per connection and kept on the channel. The
 * accept event, the Peer-Address property, the handshake and disconnect events all name the peer,
 * and formatting an address four times per connection was a visible part of what a fresh server
 * spends per handshake (the JVM still interprets that code when a restarted server meets its
 * peers all at once).
 */
public final class PeerAddressText {
    private static final AttributeKey<String> KEY = AttributeKey.valueOf(PeerAddressText.class, "text");

    private PeerAddressText() {
    }

    /** The channel's remote address as {@link SocketAddress#toString} writes it, or null when it has none. */
    public static String of(Channel ch) {
        Attribute<String> a = ch.attr(KEY);
        String text = a.get();
        if (text == null) {
            SocketAddress remote = ch.remoteAddress();
            if (remote == null) {
                return null;
            }
            text = remote.toString();
            a.set(text);
        }
        return text;
    }
}
