package io.zmtp.benchmarks;

import io.zmtp.benchmarks.titanic.TitanicStoreBenchmark;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
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
 * Proves that {@link TitanicStoreBenchmark} runs: every method and parameter combination once,
 * in this JVM, one short iteration; a set-up, operation or tear-down that throws fails the test.
 * Scores are not checked beyond being positive.
 */
class TitanicStoreBenchmarkSmokeTest {
    @Test
    void everyMethodAndParameterCombinationRuns() throws RunnerException {
        System.setProperty("jmh.ignoreLock", "true");
        Collection<RunResult> results = new Runner(new OptionsBuilder()
                .include("^" + Pattern.quote(TitanicStoreBenchmark.class.getName() + ".") + "\\w+$")
                .forks(0)
                .warmupIterations(0)
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(100))
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT)
                .build()).run();
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
        assertEquals(new TreeSet<>(Set.of(
                "rawCommit durability=PROCESS_CRASH", "rawCommit durability=POWER_LOSS", "lookupReply",
                "durableSubmit clients=1 durability=PROCESS_CRASH", "durableSubmit clients=100 durability=PROCESS_CRASH",
                "durableSubmit clients=1 durability=POWER_LOSS", "durableSubmit clients=100 durability=POWER_LOSS")), ran);
    }
}
