package io.zmtp.cli;

import io.zmtp.patterns.kit.ComponentSettings;
import io.zmtp.patterns.kit.FailureSimulation;
import io.zmtp.patterns.simplepirate.QueueSettings;
import io.zmtp.patterns.kit.WorkerSettings;
import io.zmtp.patterns.kit.Heartbeat;
import io.zmtp.patterns.kit.RetryPolicy;
import io.zmtp.socket.SocketOptions;
import picocli.CommandLine.Option;

import java.time.Duration;

/**
 * The options every pattern command spells the same way, as picocli mixins: a command declares
 * {@code @Mixin CommonOptions.Output output;} (and so on) and gets the same names, descriptions
 * and checks as every other. A mixin with defaults that depend on the pattern takes them in its
 * constructor: {@code @Mixin CommonOptions.Heartbeats heartbeat = new CommonOptions.Heartbeats(
 * Duration.ofSeconds(1), 3);} (picocli uses the instance and shows those defaults in --help).
 *
 * <p>Names: {@code -e/--endpoint} for the one endpoint a command connects to or binds,
 * {@code --frontend}/{@code --backend} for a queue's two, {@code -n/--requests} for how many
 * requests a bounded client sends, {@code -t/--timeout} and {@code -r/--retries} for a client's
 * tries, {@code --interval}/{@code --liveness} for heartbeats, {@code --reconnect}/
 * {@code --reconnect-max} for the reconnect backoff, {@code -q/--quiet} and {@code -v/--verbose}
 * for output; {@link SecurityOptions} for PLAIN/CURVE. Exit statuses: {@link #OK},
 * {@link #FAILED}, {@link #USAGE}, {@link #SIMULATED_CRASH}, each listed in the command's --help.
 */
public final class CommonOptions {
    /** Exit status: done, or stopped. */
    public static final int OK = 0;
    /** Exit status: the work failed (no reply, cannot bind or connect, a wrong reply). */
    public static final int FAILED = 1;
    /** Exit status: bad options. */
    public static final int USAGE = 2;
    /** Exit status: the component crashed on purpose (--simulate-failures). */
    public static final int SIMULATED_CRASH = 3;

    private CommonOptions() {
    }

    /** {@code -q/--quiet}, {@code -v/--verbose}. */
    public static final class Output {
        @Option(names = {"-q", "--quiet"}, description = "Print nothing but errors (the exit status tells the outcome).")
        boolean quiet;

        @Option(names = {"-v", "--verbose"},
                description = "Print more: a line per message passed on or request served (Majordomo clients,"
                        + " workers and brokers: every message, as the guide's -v; titanic: each request stored,"
                        + " dispatched and replied; flclient: every event).")
        boolean verbose;

        public boolean quiet() {
            return quiet;
        }

        public boolean verbose() {
            return verbose && !quiet;
        }
    }

    /** {@code --interval}, {@code --liveness}: an application heartbeat. */
    public static final class Heartbeats {
        @Option(names = "--interval", paramLabel = "DURATION",
                description = "Heartbeat interval (default: ${DEFAULT-VALUE}).")
        String interval;

        @Option(names = "--liveness", paramLabel = "N",
                description = "Missed heartbeats before the peer is taken for dead (default: ${DEFAULT-VALUE}).")
        int liveness;

        public Heartbeats() {
            this(Heartbeat.DEFAULT.interval(), Heartbeat.DEFAULT.liveness());
        }

        public Heartbeats(Duration interval, int liveness) {
            this.interval = DurationConverter.format(interval);
            this.liveness = liveness;
        }

        /** The heartbeat; IllegalArgumentException for a zero interval or a liveness below 1. */
        public Heartbeat heartbeat() {
            return Heartbeat.of(DurationConverter.parse("--interval", interval), liveness);
        }
    }

    /** {@code --reconnect}, {@code --reconnect-max}: the backoff after a lost peer. */
    public static final class Reconnect {
        @Option(names = "--reconnect", paramLabel = "DURATION",
                description = "First reconnect delay after the peer is lost (default: ${DEFAULT-VALUE}).")
        String initial;

        @Option(names = "--reconnect-max", paramLabel = "DURATION",
                description = "Longest reconnect delay, reached by doubling (default: ${DEFAULT-VALUE}).")
        String max;

        public Reconnect() {
            this(Duration.ofSeconds(1), Duration.ofSeconds(32));
        }

        public Reconnect(Duration initial, Duration max) {
            this.initial = DurationConverter.format(initial);
            this.max = DurationConverter.format(max);
        }

        public Duration initial() {
            return DurationConverter.parse("--reconnect", initial);
        }

        public Duration max() {
            return DurationConverter.parse("--reconnect-max", max);
        }
    }

    /** {@code -t/--timeout}, {@code -r/--retries}: a client's tries. */
    public static final class Retries {
        @Option(names = {"-t", "--timeout"}, paramLabel = "DURATION",
                description = "How long one try waits for its reply (default: ${DEFAULT-VALUE}).")
        String timeout;

        @Option(names = {"-r", "--retries"}, paramLabel = "N",
                description = "Tries per request before giving up, the first included (default: ${DEFAULT-VALUE}).")
        int retries;

        public Retries() {
            this(RetryPolicy.DEFAULT.timeout(), RetryPolicy.DEFAULT.tries());
        }

        public Retries(Duration timeout, int retries) {
            this.timeout = DurationConverter.format(timeout);
            this.retries = retries;
        }

        public Duration timeout() {
            return DurationConverter.parse("--timeout", timeout);
        }

        public int retries() {
            return retries;
        }

        /** The policy; IllegalArgumentException for a zero timeout or fewer than 1 try. */
        public RetryPolicy policy() {
            return RetryPolicy.DEFAULT.withTimeout(timeout()).withTries(retries);
        }
    }

    /** {@code -n/--requests} (and the older {@code --count}, hidden): how many requests a client sends. */
    public static final class Requests {
        @Option(names = {"-n", "--requests"}, paramLabel = "N",
                description = "Requests to send (default: ${DEFAULT-VALUE}; 0: until stopped, Ctrl-C or SIGTERM;"
                        + " a client that sends every request before it reads a reply, mdclient --async and"
                        + " ticlient, needs N).")
        long requests;

        public Requests() {
            this(0);
        }

        public Requests(long requests) {
            this.requests = requests;
        }

        @Option(names = "--count", hidden = true, paramLabel = "N", description = "Same as --requests.")
        void count(long n) {
            this.requests = n;
        }

        public long requests() {
            return requests;
        }

        /**
         * The usage error of a client that sends every request before it reads any reply, for
         * {@code -n 0} (null when N is given): "until stopped" has no end to send first.
         */
        public String needsACount(String command, String how) {
            return requests == 0 ? command + ": " + how + " sends every request before it reads a reply, so it"
                    + " needs a number of requests (-n N); -n 0, until stopped, is for clients that send one at a"
                    + " time" : null;
        }
    }

    /** {@code --frontend}, {@code --backend}: where a queue binds, for clients and for workers. */
    public static final class QueueEndpoints {
        @Option(names = "--frontend", defaultValue = "tcp://*:5555",
                description = "Endpoint for clients (default: ${DEFAULT-VALUE}).")
        String frontend;

        @Option(names = "--backend", defaultValue = "tcp://*:5556",
                description = "Endpoint for workers (default: ${DEFAULT-VALUE}).")
        String backend;

        /** Sets the endpoints, and the security flags and limits on both ROUTERs (whose identities hand over). */
        public <B extends QueueSettings.Builder<B, ?>> B apply(B builder, SecurityOptions security, BoundLimits limits) {
            SocketOptions options = limits.apply(security.apply(SocketOptions.builder().routerHandover(true))).build();
            return builder.frontend(frontend).backend(backend).frontendOptions(options).backendOptions(options);
        }

        /** For error lines: "tcp://*:5555 and tcp://*:5556". */
        public String describe() {
            return frontend + " and " + backend;
        }
    }

    /**
     * What a demonstration worker or server offers: {@code --identity}, {@code --work},
     * {@code --simulate-failures} (the guide's faults for the pattern), {@code --seed}.
     */
    public static final class WorkerDemo {
        @Option(names = "--identity",
                description = "Identity (default: a random one such as 1A2B-3C4D for each connection, as the guide's).")
        String identity;

        @Option(names = "--work", defaultValue = "0", converter = DurationConverter.class, paramLabel = "DURATION",
                description = "Time each request takes before its reply; heartbeats go on meanwhile"
                        + " (the guide's: 1s; default: ${DEFAULT-VALUE} ms).")
        Duration work;

        @Option(names = "--simulate-failures",
                description = "After 3 requests, crash on some and stall on some of the rest, as the guide's"
                        + " (server: 1 in 4 each, 2 s; workers: 1 in 6 each, 3 s).")
        boolean simulateFailures;

        @Option(names = "--seed", description = "Seed of the simulated failures, for a repeatable run.")
        Long seed;

        /**
         * Sets identity, work time, simulated faults ({@code guide}'s when asked for) and the options
         * of the socket (a worker that connects: its security and connection-loss flags).
         */
        public <B extends WorkerSettings.Builder<B, ?>> B apply(B builder, FailureSimulation.Builder guide,
                SocketOptions socketOptions, Output output) {
            return builder.identity(identity).workTime(work)
                    .simulation(simulateFailures ? guide.seed(seed).build() : FailureSimulation.NONE)
                    .socketOptions(socketOptions)
                    .traceMessages(output.verbose());
        }

        /** The same for a server that binds, with the security and the limits of its endpoint. */
        public <B extends WorkerSettings.Builder<B, ?>> B apply(B builder, FailureSimulation.Builder guide,
                SecurityOptions security, BoundLimits limits, Output output) {
            return apply(builder, guide, limits.apply(security.apply(ComponentSettings.SOCKET_OPTIONS.toBuilder())).build(),
                    output);
        }
    }
}
