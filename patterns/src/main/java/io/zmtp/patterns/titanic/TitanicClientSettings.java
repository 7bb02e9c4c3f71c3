package io.zmtp.patterns.titanic;

import io.zmtp.patterns.kit.ComponentSettings;
import io.zmtp.patterns.kit.PatternClock;
import io.zmtp.patterns.majordomo.MajordomoClientSettings;

import java.time.Duration;
import java.util.Objects;

/**
 * The settings of a {@link TitanicClient}.
 *
 * <table>
 *   <caption>Defaults</caption>
 *   <tr><td>majordomo</td><td>{@link MajordomoClientSettings#DEFAULTS} (MDP/0.1, 2500 ms, 3 tries
 *       per TSP call)</td></tr>
 *   <tr><td>pollDelay</td><td>100 ms before the first {@code titanic.reply} (the guide's), doubling
 *       after each 300 PENDING up to {@code pollDelayMax}</td></tr>
 *   <tr><td>pollDelayMax</td><td>5 s (the guide's pause after "no reply yet")</td></tr>
 *   <tr><td>retryDelay</td><td>1 s before a call answered 500, or not answered, is made again by
 *       {@link TitanicClient#call}, doubling after each further failure up to
 *       {@code retryDelayMax}</td></tr>
 *   <tr><td>retryDelayMax</td><td>10 s: the longest pause between tries while Titanic or its
 *       store is down (a client then tries 6 times a minute, and is back within 10 s of
 *       them)</td></tr>
 *   <tr><td>clock</td><td>{@link PatternClock#system()}: the pauses of {@link TitanicClient#call}
 *       (and the Majordomo client's timeouts)</td></tr>
 * </table>
 * The kit's {@code traceMessages} has no effect here (the Majordomo client's tracer sees every message).
 */
public final class TitanicClientSettings extends ComponentSettings {
    public static final TitanicClientSettings DEFAULTS = builder().build();

    private final MajordomoClientSettings majordomo;
    private final Duration pollDelay;
    private final Duration pollDelayMax;
    private final Duration retryDelay;
    private final Duration retryDelayMax;

    private TitanicClientSettings(Builder b) {
        super(b);
        majordomo = b.majordomo.toBuilder().clock(clock()).build();
        pollDelay = b.pollDelay;
        pollDelayMax = b.pollDelayMax.compareTo(b.pollDelay) < 0 ? b.pollDelay : b.pollDelayMax;
        retryDelay = b.retryDelay;
        retryDelayMax = b.retryDelayMax.compareTo(b.retryDelay) < 0 ? b.retryDelay : b.retryDelayMax;
    }

    public static Builder builder() {
        return new Builder();
    }

    public MajordomoClientSettings majordomo() {
        return majordomo;
    }

    public Duration pollDelay() {
        return pollDelay;
    }

    public Duration pollDelayMax() {
        return pollDelayMax;
    }

    public Duration retryDelay() {
        return retryDelay;
    }

    /** The longest pause between tries of a failing call (at least {@link #retryDelay()}). */
    public Duration retryDelayMax() {
        return retryDelayMax;
    }

    public static final class Builder extends ComponentSettings.Builder<Builder, TitanicClientSettings> {
        private MajordomoClientSettings majordomo = MajordomoClientSettings.DEFAULTS;
        private Duration pollDelay = Duration.ofMillis(100);
        private Duration pollDelayMax = Duration.ofSeconds(5);
        private Duration retryDelay = Duration.ofSeconds(1);
        private Duration retryDelayMax = Duration.ofSeconds(10);

        private Builder() {
        }

        @Override
        protected Builder self() {
            return this;
        }

        /** The Majordomo client under the TSP calls (version, timeout, tries, socket options). */
        public Builder majordomo(MajordomoClientSettings s) {
            this.majordomo = Objects.requireNonNull(s);
            return this;
        }

        public Builder pollDelay(Duration d) {
            this.pollDelay = positive(d, "pollDelay");
            return this;
        }

        public Builder pollDelayMax(Duration d) {
            this.pollDelayMax = positive(d, "pollDelayMax");
            return this;
        }

        public Builder retryDelay(Duration d) {
            this.retryDelay = positive(d, "retryDelay");
            return this;
        }

        /** The longest pause between tries: the delay doubles after each failure up to it; equal to retryDelay: a fixed pause. */
        public Builder retryDelayMax(Duration d) {
            this.retryDelayMax = positive(d, "retryDelayMax");
            return this;
        }

        @Override
        public TitanicClientSettings build() {
            return new TitanicClientSettings(this);
        }
    }
}
