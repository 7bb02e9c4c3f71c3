package io.zmtp.benchmarks;

import io.zmtp.benchmarks.codec.CodecBenchmark;
import io.zmtp.benchmarks.latency.ReqRepLatencyBenchmark;
import io.zmtp.benchmarks.pipeline.PipelinedRequestBenchmark;
import io.zmtp.benchmarks.throughput.CurveThroughputBenchmark;
import io.zmtp.benchmarks.throughput.RadioDishBenchmark;
import io.zmtp.benchmarks.throughput.ThroughputBenchmark;
import io.zmtp.benchmarks.tripping.ClientServerBenchmark;
import io.zmtp.benchmarks.tripping.CurveTrippingBenchmark;
import io.zmtp.benchmarks.tripping.TrippingBenchmark;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Proves that the comparison benchmarks (workloads 1-4) and the codec benchmark run: each
 * benchmark method, for each of its parameter combinations (ours and JeroMQ's), through the JMH
 * runner in this JVM (no fork, so the leak check applies), with no warm-up and one short
 * measured iteration. A set-up, an operation or a tear-down that throws, hangs past the test
 * timeout, or leaks a buffer fails the test. The scores mean nothing here (the leak detector is
 * at its paranoid level) and are not checked beyond being positive.
 */
class BenchmarksSmokeTest {

    @BeforeAll
    static void noJmhLock() {
        // JMH takes /tmp/jmh.lock for a run; a smoke test measures nothing, so it need not wait
        // for (or block) someone's real benchmark run on the same machine.
        System.setProperty("jmh.ignoreLock", "true");
    }

    /** Runs every method of {@code benchmark} once per parameter combination; {@code params} are name, value pairs. */
    private static Collection<RunResult> runOnce(Class<?> benchmark, String... params) throws RunnerException {
        ChainedOptionsBuilder options = new OptionsBuilder()
                .include("^" + Pattern.quote(benchmark.getName() + ".") + "\\w+$")
                .forks(0)
                .warmupIterations(0)
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(100))
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT);
        for (int i = 0; i < params.length; i += 2) {
            options.param(params[i], params[i + 1]);
        }
        return new Runner(options.build()).run();
    }

    /** Asserts one positive score for each of {@code expected} (method and parameters). */
    private static void assertRan(Collection<RunResult> results, String... expected) {
        Set<String> ran = new TreeSet<>();
        for (RunResult r : results) {
            String name = r.getParams().getBenchmark();
            String label = name.substring(name.lastIndexOf('.') + 1);
            for (String key : r.getParams().getParamsKeys()) {
                label += " " + key + "=" + r.getParams().getParam(key);
            }
            double score = r.getPrimaryResult().getScore();
            assertTrue(score > 0 && Double.isFinite(score), label + " scored " + score);
            ran.add(label);
        }
        assertEquals(new TreeSet<>(Set.of(expected)), ran);
    }

    @Test
    void trippingRunsForBothImplementationsAndTransports() throws RunnerException {
        assertRan(runOnce(TrippingBenchmark.class),
                "synchronous impl=zmtp transport=tcp", "synchronous impl=zmtp transport=inproc",
                "synchronous impl=jeromq transport=tcp", "synchronous impl=jeromq transport=inproc",
                "asynchronous impl=zmtp transport=tcp", "asynchronous impl=zmtp transport=inproc",
                "asynchronous impl=jeromq transport=tcp", "asynchronous impl=jeromq transport=inproc");
    }

    @Test
    void freelanceRunsNextToReqRepWithOneAndThreeServers() throws RunnerException {
        assertRan(runOnce(io.zmtp.benchmarks.freelance.FreelanceBenchmark.class),
                "roundTrip variant=reqrep", "roundTrip variant=model3-1", "roundTrip variant=model3-3");
    }

    @Test
    void reqRepLatencyRunsForBothImplementationsAndSizes() throws RunnerException {
        assertRan(runOnce(ReqRepLatencyBenchmark.class),
                "roundTrip impl=zmtp size=1", "roundTrip impl=zmtp size=1024",
                "roundTrip impl=jeromq size=1", "roundTrip impl=jeromq size=1024");
    }

    @Test
    void throughputRunsForBothImplementationsAndPatterns() throws RunnerException {
        // One size: the sizes change no code path, and each run sends whole batches.
        assertRan(runOnce(ThroughputBenchmark.class, "size", "1024"),
                "messages impl=zmtp pattern=pubsub size=1024", "messages impl=zmtp pattern=pushpull size=1024",
                "messages impl=jeromq pattern=pubsub size=1024", "messages impl=jeromq pattern=pushpull size=1024");
    }

    @Test
    void curveThroughputRunsForBothImplementations() throws RunnerException {
        // One size, as above.
        assertRan(runOnce(CurveThroughputBenchmark.class, "size", "1024"),
                "messages impl=zmtp size=1024", "messages impl=jeromq size=1024");
    }

    @Test
    void curveRoundTripRunsForBothImplementations() throws RunnerException {
        assertRan(runOnce(CurveTrippingBenchmark.class), "asynchronous impl=zmtp", "asynchronous impl=jeromq");
    }

    @Test
    void pipelinedRequestsRunForBothImplementations() throws RunnerException {
        assertRan(runOnce(PipelinedRequestBenchmark.class), "request impl=zmtp", "request impl=jeromq");
    }

    @Test
    void clientServerRoundTripRunsForBothImplementations() throws RunnerException {
        assertRan(runOnce(ClientServerBenchmark.class),
                "synchronous impl=zmtp", "synchronous impl=jeromq", "asynchronous impl=zmtp", "asynchronous impl=jeromq");
    }

    @Test
    void radioDishRunsOverTcpForBothImplementationsAndOverUdpForOurs() throws RunnerException {
        assertRan(runOnce(RadioDishBenchmark.class), "tcp impl=zmtp", "tcp impl=jeromq", "udp");
    }

    @Test
    void majordomoCrowdRunsForBothImplementations() throws RunnerException {
        // 10 workers and 10 clients: the larger crowds run the same code on more peers.
        assertRan(runOnce(io.zmtp.benchmarks.majordomo.MajordomoCrowdBenchmark.class, "crowd", "10x10"),
                "replies crowd=10x10 impl=zmtp", "replies crowd=10x10 impl=jeromq");
    }

    @Test
    void codecBenchmarksRun() throws RunnerException {
        assertRan(runOnce(CodecBenchmark.class),
                "encode frames=1", "encode frames=6", "decode frames=1", "decode frames=6");
    }
}
