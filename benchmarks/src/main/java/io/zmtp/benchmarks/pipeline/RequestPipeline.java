package io.zmtp.benchmarks.pipeline;

/**
 * A DEALER client on the calling thread with requests in flight to an echoing ROUTER server,
 * over loopback tcp.
 */
interface RequestPipeline extends AutoCloseable {
    /** Sends a request without waiting for its reply. */
    void send();

    /** Receives one reply. */
    void receive();

    @Override
    void close();
}
