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

    /** The CPU time the broker's threads have used, in nanoseconds. */
    long brokerCpuNanos();

    /** Throws if a client failed (a request with no reply after its tries, a closed socket). */
    void check();

    @Override
    void close();

    /** The CPU time the threads named have used, in nanoseconds (a thread that ended counts no more). */
    static long cpuNanos(java.util.Collection<Long> threadIds) {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (long id : threadIds) {
            long t = mx.getThreadCpuTime(id);
            if (t > 0) {
                sum += t;
            }
        }
        return sum;
    }

    /** The ids of the live threads. */
    static java.util.Set<Long> liveThreads() {
        java.util.Set<Long> ids = new java.util.HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            ids.add(t.getId());
        }
        return ids;
    }
}
