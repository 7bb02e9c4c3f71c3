package io.zmtp.benchmarks.majordomo;

/**
 * One Majordomo deployment under test: a broker, an echo service of N workers and a client, each
 * in its own context as three processes would be. The benchmark thread is the client's user.
 */
interface MajordomoRig extends AutoCloseable {

    /** Starts the broker and {@code workers} echo workers, and waits until they are registered. */
    void start(int workers) throws Exception;

    /** Sends {@code n} requests one at a time, each waiting for its reply; returns the replies. */
    long synchronous(int n) throws Exception;

    /** Sends {@code n} requests, then receives the {@code n} replies; returns the replies. */
    long asynchronous(int n) throws Exception;

    @Override
    void close();

    /** The request body of the guide's mdclient. */
    byte[] BODY = "Hello world".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    String SERVICE = "echo";
}
