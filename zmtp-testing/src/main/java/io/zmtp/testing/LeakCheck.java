package io.zmtp.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.ArrayList;
import java.util.List;

/**
 * Fails a test that leaked a Netty buffer. Installed for every test by JUnit's extension
 * autodetection (see META-INF/services); the surefire configuration sets Netty's leak detector to
 * the paranoid level, so every buffer is tracked.
 *
 * <p>After each test it collects garbage and allocates a tracked buffer, which makes the detector
 * report what was collected without being released; any report fails the test.
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
        drain();
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

    /** Collects garbage and triggers the detector's report, a few rounds with short pauses. */
    public static void drain() {
        for (int i = 0; i < 3; i++) {
            System.gc();
            System.runFinalization();
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            for (int j = 0; j < 4; j++) {
                ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(1);
                b.release();
                ByteBuf u = UnpooledByteBufAllocator.DEFAULT.directBuffer(1);
                u.release();
            }
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
