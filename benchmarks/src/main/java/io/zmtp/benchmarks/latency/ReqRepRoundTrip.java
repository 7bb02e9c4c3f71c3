package io.zmtp.benchmarks.latency;

/** A REQ socket on the calling thread and an echoing REP server behind it, over loopback tcp. */
public interface ReqRepRoundTrip extends AutoCloseable {
    /** One request of the configured size, and its reply. */
    void call();

    @Override
    void close();
}
