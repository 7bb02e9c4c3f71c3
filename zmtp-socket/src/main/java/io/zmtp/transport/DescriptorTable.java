package io.zmtp.transport;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.Native;
import io.netty.util.internal.PlatformDependent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * This process's table of file descriptors, grown before a crowd arrives rather than while it does.
 *
 * <p>Why it exists: Linux grows a process's descriptor table by doubling it (256, 512, ...,
 * 16,384 entries) when a new descriptor does not fit, and in a process of several threads, which a
 * JVM always is, each growth waits for an RCU grace period before it goes on. The wait falls on
 * the accept(2) that needed the room, so on the event loop: 10 to 27 ms per growth on a busy
 * 2-core machine. A fresh server that meets 10,000 peers at once grows its table up to seven times
 * while it accepts them; its loop stood still for 81-93 ms of the storm's first 200, and the
 * kernel's queue of connections waiting to be accepted filled about twice as far as with the table
 * grown beforehand (benchmarks/RESULTS.md, "The descriptor table"). A bound endpoint reserves
 * room for its {@link io.zmtp.socket.SocketOptions#acceptQueue() accept queue} before it listens.
 *
 * <p>Java cannot ask for a descriptor of a given number (dup2), so a reserve holds throwaway
 * descriptors (eventfds, or /dev/null without Netty's native epoll) until one gets the number
 * asked for, then closes them all; the table never shrinks. That costs a bind 0.16 s for 16,384
 * on a 2-core machine, half of it the growths' grace periods. A process of one thread grows its
 * table without them, and exec keeps the table: the {@code zmtp} launcher has bash open a
 * descriptor numbered 16383 before it becomes the JVM, and a reserve finds nothing left to do. Linux only (elsewhere nothing is
 * done); bounded by the process's descriptor limit, of which it leaves a sixteenth, and at least
 * 64, free for other threads while it holds them. The table costs 8 bytes of kernel memory per
 * entry: 128 KiB for 16,384.
 */
public final class DescriptorTable {
    private static final Logger log = LoggerFactory.getLogger(DescriptorTable.class);
    /** Descriptors left free for the process's other threads while a reserve holds its own, at least. */
    static final int MIN_HEADROOM = 64;

    /** The largest number of descriptors reserved or being reserved, and its work. */
    private static int asked;
    private static CompletableFuture<Void> reserving = CompletableFuture.completedFuture(null);

    private DescriptorTable() {
    }

    /**
     * Grows the table, on a thread of its own, to hold {@code descriptors} descriptors (the
     * numbers below it). Completes at once where nothing is to be done (not Linux, or as much or
     * more was reserved before in this process); never completes exceptionally: a reserve that
     * cannot be made is logged and left, and the table grows as descriptors arrive.
     */
    public static synchronized CompletableFuture<Void> reserve(int descriptors) {
        if (descriptors <= asked || !"linux".equals(PlatformDependent.normalizedOs())) {
            return reserving;
        }
        int askedBefore = asked;
        asked = descriptors;
        if (!growNeeded(descriptors, askedBefore, size())) {
            return reserving;
        }
        CompletableFuture<Void> before = reserving;
        CompletableFuture<Void> next = new CompletableFuture<>();
        reserving = next;
        Thread t = new Thread(() -> {
            before.join();
            try {
                long start = System.nanoTime();
                long[] limits = limits();
                int reached = grow(descriptors, limits[0], limits[1]);
                log.debug("descriptor table: room up to descriptor {} made in {} ms ({} asked, {} open, limit {})",
                        reached, (System.nanoTime() - start) / 1_000_000, descriptors, limits[0], limits[1]);
            } catch (RuntimeException | Error e) {
                log.warn("descriptor table: could not grow it ahead ({}); it grows as descriptors arrive", e.toString());
            } finally {
                next.complete(null);
            }
        }, "zmtp-descriptor-table");
        t.setDaemon(true);
        t.start();
        return next;
    }

    /**
     * Whether a reserve of {@code descriptors} has work to do, after {@code asked} was reserved
     * before in this process, with the table now {@code size} (-1: unknown): not where as many were
     * asked before, nor where the table holds as many already (grown before this JVM started, by
     * the zmtp launcher, say).
     */
    static boolean growNeeded(int descriptors, int asked, int size) {
        return descriptors > asked && size < descriptors;
    }

    /** The table's size now (FDSize in /proc/self/status), or -1 where it cannot be read. */
    static int size() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("FDSize:")) {
                    return Integer.parseInt(line.substring("FDSize:".length()).trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux's procfs: unknown
        }
        return -1;
    }

    /** {descriptors open, the process's limit}, or the limit as unknown (0) where the JVM cannot tell. */
    private static long[] limits() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean u) {
            return new long[] {u.getOpenFileDescriptorCount(), u.getMaxFileDescriptorCount()};
        }
        return new long[] {0, 0};
    }

    /**
     * Opens throwaway descriptors until one has the number {@code descriptors - 1} (or the
     * highest the limit allows with its headroom free), then closes them all. Returns the highest
     * number reached, or -1 where the limit or the numbers are unknown.
     */
    static int grow(int descriptors, long open, long limit) {
        if (limit <= 0) {
            return -1;
        }
        long headroom = Math.max(MIN_HEADROOM, limit / 16);
        long target = Math.min(descriptors - 1L, limit - headroom);
        long count = target + 1 - open; // enough where the numbers are not known (/dev/null)
        List<Closeable> held = new ArrayList<>();
        int highest = -1;
        try {
            while (highest < target && (highest >= 0 || held.size() < count)) {
                Throwaway d = open();
                held.add(d.closer);
                highest = Math.max(highest, d.number);
            }
        } catch (IOException | RuntimeException e) {   // Netty's eventfd fails with a ChannelException
            log.debug("descriptor table: stopped at descriptor {}: {}", highest, e.toString());
        } finally {
            for (Closeable c : held) {
                try {
                    c.close();
                } catch (IOException e) {
                    // a descriptor of our own that will not close: nothing else to do with it
                }
            }
        }
        return highest;
    }

    private record Throwaway(int number, Closeable closer) {
    }

    private static Throwaway open() throws IOException {
        if (Epoll.isAvailable()) {
            io.netty.channel.unix.FileDescriptor fd = Native.newEventFd();
            return new Throwaway(fd.intValue(), fd::close);
        }
        FileChannel c = FileChannel.open(Path.of("/dev/null"), StandardOpenOption.READ);
        return new Throwaway(-1, c);
    }
}
