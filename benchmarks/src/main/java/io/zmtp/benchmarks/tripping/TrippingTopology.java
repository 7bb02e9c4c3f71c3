package io.zmtp.benchmarks.tripping;

/**
 * A round trip set up by one implementation: a client on the calling (benchmark) thread and an
 * echo behind it. The guide's round-trip test ({@link TrippingBenchmark}): a DEALER client ("C")
 * in front of a ROUTER/ROUTER broker that swaps the routing frame, and an echoing DEALER worker
 * ("W") behind it; or a CLIENT and the SERVER that echoes it ({@link ClientServerBenchmark}).
 */
interface TrippingTopology extends AutoCloseable {
    /** {@code calls} requests, each waiting for its reply before the next. */
    void synchronous(int calls);

    /** {@code calls} requests sent at once, then their {@code calls} replies received. */
    void asynchronous(int calls);

    @Override
    void close();
}
