package io.zmtp.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.List;

/**
 * Fails a test that leaked a Netty buffer. Installed for every test by JUnit's extension
 * autodetection (see META-INF/services); the surefire configuration sets Netty's leak detector to
 * the paranoid level, so every buffer is tracked.
 *
 * <p>After each test it collects garbage and allocates a tracked buffer, which makes the detector
 * report what was collected without being released; any report fails the test. Before each test
 * it collects once and forgets what it finds, which belongs to a class's set-up or to an earlier
 * test class.
 */
public final class LeakCheck implements BeforeEachCallback, AfterEachCallback {
    private static final List<String> LEAKS = new ArrayList<>();

    static {
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingFactory());
    }

    /** Makes sure the recording detector is installed (it must be, before any buffer class loads). */
    public static void install() {
        // the static initializer did the work
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        // what the class's set-up or an earlier class left behind is not this test's
        collect();
        synchronized (LEAKS) {
            LEAKS.clear();
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        drain();
        List<String> found;
        synchronized (LEAKS) {
            found = new ArrayList<>(LEAKS);
            LEAKS.clear();
        }
        if (!found.isEmpty()) {
            throw new AssertionError(found.size() + " buffer leak(s) detected:\n" + String.join("\n", found));
        }
    }

    /**
     * Collects garbage and makes the detector report what it found, twice: the second collection
     * finds what only a finalizer run after the first let go, and it also proves the first one's
     * references enqueued (the JVM hands them over a batch at a time).
     */
    public static void drain() {
        collect();
        System.runFinalization();
        pause(); // a loop thread still finishing the test's last task lets go of its buffers
        collect();
    }

    private static void pause() {
        try {
            Thread.sleep(5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * One full collection, then a wait until the JVM has handed over the references it found
     * (a sentinel of ours, found by the same collection, arrives in our queue), then tracked
     * allocations, which make the detector poll its queue and report leaked buffers. Each full
     * collection costs tens of milliseconds, and every test of the suite runs this check, so it
     * waits for the hand-over instead of collecting again after fixed pauses.
     */
    private static void collect() {
        ReferenceQueue<Object> queue = new ReferenceQueue<>();
        // The referent is never held in a local here: the interpreter would keep it alive in
        // this frame (a timed-out wait per collection). Should an earlier collection find it,
        // the drain's second collection still proves that batch was handed over.
        PhantomReference<Object> sentinel = new PhantomReference<>(new Object(), queue);
        System.gc();
        try {
            if (queue.remove(1000) == null) {
                // not a failure, but every test would pay the second: say so where it shows
                System.err.println("LeakCheck: a collection's references did not arrive within 1 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } finally {
            Reference.reachabilityFence(sentinel);
        }
        for (int j = 0; j < 4; j++) {
            ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(1);
            b.release();
            ByteBuf u = UnpooledByteBufAllocator.DEFAULT.directBuffer(1);
            u.release();
        }
    }

    /** Leaks recorded since the last check (for tests that inspect them directly). */
    public static List<String> takeLeaks() {
        synchronized (LEAKS) {
            List<String> l = new ArrayList<>(LEAKS);
            LEAKS.clear();
            return l;
        }
    }

    private static final class RecordingFactory extends ResourceLeakDetectorFactory {
        @Override
        public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
                                                                   long maxActive) {
            return new ResourceLeakDetector<T>(resource, samplingInterval) {
                @Override
                protected void reportTracedLeak(String resourceType, String records) {
                    synchronized (LEAKS) {
                        LEAKS.add("LEAK " + resourceType + records);
                    }
                    super.reportTracedLeak(resourceType, records);
                }

                @Override
                protected void reportUntracedLeak(String resourceType) {
                    synchronized (LEAKS) {
                        LEAKS.add("LEAK " + resourceType + " (untraced)");
                    }
                    super.reportUntracedLeak(resourceType);
                }
            };
        }
    }
}
