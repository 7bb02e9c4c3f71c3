package io.zmtp.patterns.kit;

import java.time.Duration;
import java.util.Random;

/**
 * The guide's demonstration faults, for the demo server and workers: after some healthy
 * requests, a request may make the component crash (close its sockets at once, as a killed
 * process would) or be overloaded (go quiet for a while before answering). Off unless asked for
 * ({@link #NONE}); {@link #builder()} sets the chances, and a seed makes a run repeatable.
 */
public final class FailureSimulation {
    /** No simulated faults (the default everywhere). */
    public static final FailureSimulation NONE = builder().build();

    /** What a request triggers. */
    public enum Fault { NONE, CRASH, OVERLOAD }

    private final int healthyRequests;
    private final double crashChance;
    private final double overloadChance;
    private final Duration overloadTime;
    private final Long seed;

    private FailureSimulation(Builder b) {
        healthyRequests = b.healthyRequests;
        crashChance = b.crashChance;
        overloadChance = b.overloadChance;
        overloadTime = b.overloadTime;
        seed = b.seed;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The guide's Lazy Pirate server: after 3 requests, 1 in 4 crashes, then 1 in 4 is 2 s late. */
    public static Builder guideServer() {
        return builder().healthyRequests(3).crashChance(0.25).overloadChance(0.25)
                .overloadTime(Duration.ofSeconds(2));
    }

    /** The guide's workers: after 3 requests, 1 in 6 crashes, then 1 in 6 stalls for 3 s. */
    public static Builder guideWorker() {
        return builder().healthyRequests(3).crashChance(1.0 / 6).overloadChance(1.0 / 6)
                .overloadTime(Duration.ofSeconds(3));
    }

    public boolean isOff() {
        return crashChance == 0 && overloadChance == 0;
    }

    public Duration overloadTime() {
        return overloadTime;
    }

    /** A random source for one component's run (seeded if a seed was set). */
    public Random newRandom() {
        return seed == null ? new Random() : new Random(seed);
    }

    /** The fault for the {@code n}th request (1-based) of a run. */
    public Fault decide(long n, Random random) {
        if (isOff() || n <= healthyRequests) {
            return Fault.NONE;
        }
        if (crashChance > 0 && random.nextDouble() < crashChance) {
            return Fault.CRASH;
        }
        if (overloadChance > 0 && random.nextDouble() < overloadChance) {
            return Fault.OVERLOAD;
        }
        return Fault.NONE;
    }

    @Override
    public String toString() {
        return isOff() ? "no simulated faults"
                : "after " + healthyRequests + " requests: crash " + crashChance + ", overload " + overloadChance
                        + " for " + overloadTime.toMillis() + " ms";
    }

    public static final class Builder {
        private int healthyRequests;
        private double crashChance;
        private double overloadChance;
        private Duration overloadTime = Duration.ofSeconds(2);
        private Long seed;

        private Builder() {
        }

        /** Requests served normally before any fault (the guide: 3). */
        public Builder healthyRequests(int n) {
            if (n < 0) {
                throw new IllegalArgumentException("healthyRequests must not be negative");
            }
            this.healthyRequests = n;
            return this;
        }

        /** The chance, from 0 to 1, that a request makes the component crash. */
        public Builder crashChance(double p) {
            this.crashChance = chance(p);
            return this;
        }

        /** The chance, from 0 to 1, that a request finds the component overloaded. */
        public Builder overloadChance(double p) {
            this.overloadChance = chance(p);
            return this;
        }

        /** How long an overload lasts. */
        public Builder overloadTime(Duration d) {
            if (d.isNegative()) {
                throw new IllegalArgumentException("overloadTime must not be negative");
            }
            this.overloadTime = d;
            return this;
        }

        /** Seeds the random choices (null: a different run every time). */
        public Builder seed(Long seed) {
            this.seed = seed;
            return this;
        }

        public FailureSimulation build() {
            return new FailureSimulation(this);
        }

        private static double chance(double p) {
            if (!(p >= 0 && p <= 1)) {
                throw new IllegalArgumentException("a chance is between 0 and 1: " + p);
            }
            return p;
        }
    }
}
