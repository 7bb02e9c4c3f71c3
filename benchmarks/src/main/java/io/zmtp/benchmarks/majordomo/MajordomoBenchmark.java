package io.zmtp.benchmarks.majordomo;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.util.concurrent.TimeUnit;

/**
 * The guide's Majordomo test: N echo requests ("Hello world", MDP/0.1) through a broker, timed as a
 * whole, with the synchronous client (the guide: 100,000 in 14.1 s), the asynchronous client and
 * one worker (8.7 s), and the asynchronous client and ten workers (3.9 s). Each figure is the time
 * of one run of {@code requests} requests; {@code impl=zmtp} is this library, {@code impl=jeromq}
 * the same workload on JeroMQ 0.6.0 in the same run.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar Majordomo -f 1 -wi 1 -i 2 -p requests=10000    # short
 * java -jar benchmarks/target/benchmarks.jar Majordomo                                       # 100,000
 * </pre>
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
public class MajordomoBenchmark {

    /** A broker, its workers and a client, started once per trial. */
    @State(Scope.Benchmark)
    public abstract static class Deployment {
        @Param({"zmtp", "jeromq"})
        public String impl;

        @Param({"100000"})
        public int requests;

        MajordomoRig rig;

        abstract int workers();

        @Setup(Level.Trial)
        public void start() throws Exception {
            rig = "jeromq".equals(impl) ? new JeromqMajordomoRig() : new ZmtpMajordomoRig();
            rig.start(workers());
        }

        @TearDown(Level.Trial)
        public void stop() {
            rig.close();
        }

        long check(long replies) {
            if (replies != requests) {
                throw new IllegalStateException(replies + " replies to " + requests + " requests");
            }
            return replies;
        }
    }

    public static class OneWorker extends Deployment {
        @Override
        int workers() {
            return 1;
        }
    }

    public static class TenWorkers extends Deployment {
        @Override
        int workers() {
            return 10;
        }
    }

    /** mdclient: one request at a time. */
    @Benchmark
    public long synchronousClient(OneWorker d) throws Exception {
        return d.check(d.rig.synchronous(d.requests));
    }

    /** mdclient2 with one worker: every request sent, then every reply received. */
    @Benchmark
    public long asynchronousClient1Worker(OneWorker d) throws Exception {
        return d.check(d.rig.asynchronous(d.requests));
    }

    /** mdclient2 with ten workers. */
    @Benchmark
    public long asynchronousClient10Workers(TenWorkers d) throws Exception {
        return d.check(d.rig.asynchronous(d.requests));
    }
}
