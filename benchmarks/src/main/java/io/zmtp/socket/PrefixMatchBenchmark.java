package io.zmtp.socket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The prefix match at the heart of PUB/XPUB fan-out, alone: a trie of {@code prefixes}
 * subscriptions ("topic.N."), matched against a topic that one of them prefixes. In the
 * library's package (the trie is package-private); uses only methods every version of
 * {@code PrefixTrie} has, so it compares versions: {@code java -jar benchmarks/target/benchmarks.jar PrefixMatchBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PrefixMatchBenchmark {
    @Param({"10", "10000"})
    int prefixes;

    private final PrefixTrie<Integer> trie = new PrefixTrie<>();
    private ByteBuf topic;
    private ByteBuf miss;
    private final Counter counter = new Counter();

    static final class Counter implements Consumer<Integer> {
        int sum;

        @Override
        public void accept(Integer v) {
            sum += v;
        }
    }

    @Setup
    public void setUp() {
        for (int i = 0; i < prefixes; i++) {
            trie.put(("topic." + i + ".").getBytes(StandardCharsets.US_ASCII), i);
        }
        topic = Unpooled.directBuffer().writeBytes(("topic." + (prefixes / 2) + ".some.longer.subject")
                .getBytes(StandardCharsets.US_ASCII));
        miss = Unpooled.directBuffer().writeBytes("topic.x.nothing".getBytes(StandardCharsets.US_ASCII));
    }

    @TearDown
    public void tearDown() {
        topic.release();
        miss.release();
    }

    @Benchmark
    public int match() {
        trie.matchPrefixes(topic, counter);
        return counter.sum;
    }

    @Benchmark
    public int noMatch() {
        trie.matchPrefixes(miss, counter);
        return counter.sum;
    }
}
