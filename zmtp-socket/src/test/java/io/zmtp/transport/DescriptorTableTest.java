package io.zmtp.transport;

import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.SocketType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Growing the descriptor table ahead ({@link DescriptorTable}), read back from the kernel: the
 * table's size is /proc/self/status's FDSize, and no throwaway descriptor may stay open.
 */
class DescriptorTableTest {

    @BeforeEach
    void linux() throws IOException {
        assumeTrue(Files.isReadable(Path.of("/proc/self/status")), "Linux's /proc/self/status gives the table's size");
        // the first throwaway loads Netty's native library, which keeps descriptors of its own open
        long open = openDescriptors();
        DescriptorTable.grow((int) open + 2, open, open + 1000);
    }

    @Test
    void opensUpToTheNumberAskedAndClosesWhatItOpened() throws IOException {
        long open = openDescriptors();
        int highestBefore = highestOpen();
        int asked = highestBefore + 300;
        long limit = open + 10_000;   // room above, as a descriptor limit would leave

        int reached = DescriptorTable.grow(asked, open, limit);

        assertEquals(asked - 1, reached, "up to the highest descriptor asked for");
        assertTrue(tableSize() > reached, "the table holds descriptor " + reached + ": " + tableSize());
        assertEquals(List.of(), openAbove(highestBefore), "every throwaway descriptor closed");
    }

    @Test
    void leavesAPartOfTheLimitFree() throws IOException {
        long open = openDescriptors();
        int highestBefore = highestOpen();
        long limit = open + 600;   // a limit close above: its headroom (a sixteenth, at least 64) bounds the reserve
        long headroom = Math.max(DescriptorTable.MIN_HEADROOM, limit / 16);

        int reached = DescriptorTable.grow(100_000, open, limit);

        assertEquals(limit - headroom, reached, "stopped at the limit less its headroom");
        assertEquals(List.of(), openAbove(highestBefore), "every throwaway descriptor closed");
    }

    @Test
    void anUnknownLimitGrowsNothing() throws IOException {
        long open = openDescriptors();
        int highestBefore = highestOpen();
        assertEquals(-1, DescriptorTable.grow(100_000, open, 0));
        assertEquals(List.of(), openAbove(highestBefore));
    }

    /**
     * Which reserves have work: the launcher's case (nothing asked in this JVM, a table of 16,384
     * already) has none. Decided without the process's history, which other tests of this JVM
     * have made (the case below passes whatever the decision where they asked as many before).
     */
    @Test
    void aReserveHasWorkOnlyWhereTheTableIsSmallerAndNoMoreWasAsked() {
        assertFalse(DescriptorTable.growNeeded(16_384, 0, 16_384), "grown by the launcher");
        assertFalse(DescriptorTable.growNeeded(16_384, 0, 32_768), "grown larger");
        assertTrue(DescriptorTable.growNeeded(16_384, 0, 256), "a fresh JVM's table");
        assertTrue(DescriptorTable.growNeeded(16_384, 0, -1), "a size that cannot be read");
        assertFalse(DescriptorTable.growNeeded(16_384, 16_384, 256), "asked before: its reserve's work stands");
        assertTrue(DescriptorTable.growNeeded(32_768, 16_384, 16_384), "more than asked before");
    }

    /** A table that holds as many already (the launcher grew it) is left alone, and at once. */
    @Test
    void aTableLargeEnoughAlreadyIsLeftAlone() throws IOException {
        int size = tableSize();
        assertEquals(size, DescriptorTable.size(), "the size read as the test reads it");
        assertTrue(DescriptorTable.reserve(size).isDone(), "nothing to wait for");
        assertEquals(size, tableSize());
    }

    /** A bind reserves its accept queue's worth before it listens: bound, the table holds them. */
    @Test
    void aBindReservesItsAcceptQueue() throws Exception {
        int size = tableSize();
        long open = openDescriptors();
        long limit = ((com.sun.management.UnixOperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getMaxFileDescriptorCount();
        int queue = 2 * size;   // more than the table holds now (and than any bind of this JVM asked before)
        long expected = Math.min(queue, limit - Math.max(DescriptorTable.MIN_HEADROOM, limit / 16) + 1);
        assumeTrue(expected > size, "the descriptor limit (" + limit + ") leaves room to grow the table");

        try (ZmtpContext ctx = ZmtpContext.create(1)) {
            ZmtpSocket router = ctx.socket(SocketType.ROUTER, SocketOptions.builder().acceptQueue(queue).build());
            String bound = router.bind("tcp://127.0.0.1:0").get(10, TimeUnit.SECONDS);
            assertTrue(bound.startsWith("tcp://127.0.0.1:"), bound);
            assertTrue(tableSize() >= expected, "the table holds " + expected + " before the bind ends: " + tableSize());
            router.close(Duration.ZERO);
        }
    }

    private static int tableSize() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("FDSize:")) {
                return Integer.parseInt(line.substring("FDSize:".length()).trim());
            }
        }
        throw new IllegalStateException("no FDSize in /proc/self/status");
    }

    private static int highestOpen() throws IOException {
        List<Integer> open = openAbove(-1);
        return open.get(open.size() - 1);
    }

    private static long openDescriptors() throws IOException {
        return openAbove(-1).size();
    }

    /**
     * The numbers of this process's open descriptors above {@code n}, in order, less the one the
     * listing holds. The throwaways are numbered above every descriptor open before, unless
     * another thread closed one meanwhile; so those open above the highest before are throwaways
     * left open.
     */
    private static List<Integer> openAbove(int n) throws IOException {
        List<Integer> numbers;
        try (var fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            numbers = new java.util.ArrayList<>();
            for (Path p : fds) {
                numbers.add(Integer.parseInt(p.getFileName().toString()));
            }
        }
        // the listing's own descriptor was the highest free number when it opened: drop the one now closed
        numbers.removeIf(k -> !Files.exists(Path.of("/proc/self/fd/" + k), java.nio.file.LinkOption.NOFOLLOW_LINKS));
        numbers.removeIf(k -> k <= n);
        java.util.Collections.sort(numbers);
        return numbers;
    }
}
