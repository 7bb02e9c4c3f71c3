package io.zmtp.benchmarks;

/**
 * The implementation a benchmark runs: ours or JeroMQ's, as a JMH {@code @Param} so that every
 * result has its twin in the same run (libzmq runs as the C programs of {@code benchmarks/native}).
 */
public enum Impl {
    /** zmtp-netty, this project. */
    zmtp,
    /** JeroMQ 0.6.0, the pure-Java ZeroMQ. */
    jeromq
}
