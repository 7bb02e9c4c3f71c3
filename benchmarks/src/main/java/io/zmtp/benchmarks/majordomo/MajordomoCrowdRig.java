package io.zmtp.benchmarks.majordomo;

/**
 * A Majordomo crowd under test: a broker, N echo workers of one service and M clients, each
 * client keeping its window of requests in flight by itself (a new request for each reply), so
 * the benchmark thread only reads the count of replies.
 */
interface MajordomoCrowdRig extends AutoCloseable {

    /**
     * Starts the broker and the workers, waits until they are registered, then starts the clients,
     * each with {@code window} requests in flight.
     */
    void start(int workers, int clients, int window) throws Exception;

    /** Replies received so far, all clients. */
    long replies();

    /** Throws if a client failed (a request with no reply after its tries, a closed socket). */
    void check();

    @Override
    void close();
}
