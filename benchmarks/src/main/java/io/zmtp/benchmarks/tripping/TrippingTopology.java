package io.zmtp.benchmarks.tripping;

/**
 * The guide's round-trip test set up by one implementation: a DEALER client ("C") in front of a
 * ROUTER/ROUTER broker that swaps the routing frame, and an echoing DEALER worker ("W") behind it.
 * The client runs on the calling (benchmark) thread.
 */
interface TrippingTopology extends AutoCloseable {
    /** {@code calls} requests, each waiting for its reply before the next. */
    void synchronous(int calls);

    /** {@code calls} requests sent at once, then their {@code calls} replies received. */
    void asynchronous(int calls);

    @Override
    void close();
}
