package io.zmtp.wire;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.local.LocalChannel;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

class PeerAddressTextTest {
    @Test
    void theAddressIsFormattedOnceAndKeptOnTheChannel() {
        EmbeddedChannel ch = new EmbeddedChannel();
        try {
            String text = PeerAddressText.of(ch);
            assertEquals(ch.remoteAddress().toString(), text);
            assertSame(text, PeerAddressText.of(ch), "the second call returns the kept text");
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void aChannelWithoutARemoteAddressHasNoText() {
        LocalChannel unconnected = new LocalChannel();
        assertNull(unconnected.remoteAddress());
        assertNull(PeerAddressText.of(unconnected));
    }
}
