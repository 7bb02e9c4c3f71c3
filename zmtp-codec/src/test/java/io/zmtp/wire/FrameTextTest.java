package io.zmtp.wire;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FrameTextTest {

    @Test
    void escapeKeepsPrintableTextAndEscapesEverythingElse() {
        assertEquals("admin", FrameText.escape("admin"));
        assertEquals("a\\x0a2026-11-23 WARN forged", FrameText.escape("a\n2026-11-23 WARN forged"));
        assertEquals("back\\\\slash", FrameText.escape("back\\slash"));
        assertEquals("\\x1b[31m", FrameText.escape("\u001b[31m"));
        assertEquals("\\u2028", FrameText.escape("\u2028"));
        assertEquals("null", FrameText.escape(null));
    }

    @Test
    void escapeCutsLongText() {
        String escaped = FrameText.escape("x".repeat(10_000));
        assertTrue(escaped.length() < 100, escaped);
        assertTrue(escaped.endsWith("...(10000 chars)"), escaped);
        assertFalse(escaped.contains("\n"));
    }
}
