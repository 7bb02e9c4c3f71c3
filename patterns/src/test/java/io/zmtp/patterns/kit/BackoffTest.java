package io.zmtp.patterns.kit;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class BackoffTest {
    @Test
    void doublesUpToTheMaximumAndResets() {
        Backoff b = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(5));
        assertEquals(Duration.ofSeconds(1), b.next());
        assertEquals(Duration.ofSeconds(2), b.next());
        assertEquals(Duration.ofSeconds(4), b.next());
        assertEquals(Duration.ofSeconds(5), b.next());
        assertEquals(Duration.ofSeconds(5), b.next());
        b.reset();
        assertEquals(Duration.ofSeconds(1), b.next());
    }

    @Test
    void aMaximumBelowTheFirstDelayIsAFixedDelay() {
        Backoff b = new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1));
        assertEquals(Duration.ofSeconds(2), b.next());
        assertEquals(Duration.ofSeconds(2), b.next());
        assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ZERO, Duration.ofSeconds(1)));
    }
}
