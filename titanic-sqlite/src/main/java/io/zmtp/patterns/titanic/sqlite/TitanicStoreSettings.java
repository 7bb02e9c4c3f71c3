package io.zmtp.patterns.titanic.sqlite;

import io.zmtp.patterns.titanic.TitanicStoreFullException;

import java.nio.file.Path;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * The settings of a {@link SqliteTitanicStore}.
 *
 * <table>
 *   <caption>Defaults</caption>
 *   <tr><td>directory</td><td>{@code .titanic} (the guide's), created if missing; the store is the
 *       file {@code titanic.db} (and its write-ahead log) in it</td></tr>
 *   <tr><td>max entries</td><td>1,000,000 requests (with or without their replies)</td></tr>
 *   <tr><td>max bytes</td><td>1 GiB of request bodies, service names and replies</td></tr>
 *   <tr><td>durability</td><td>{@link Durability#PROCESS_CRASH}: a completed write survives
 *       {@code kill -9} of the process, not the loss of the machine's power</td></tr>
 *   <tr><td>max batch</td><td>1,024 operations per transaction</td></tr>
 *   <tr><td>max queued operations</td><td>100,000 waiting for the store's thread</td></tr>
 *   <tr><td>clock</td><td>{@link System#currentTimeMillis()}: the epoch milliseconds stored with each
 *       request and reply, which retention compares</td></tr>
 * </table>
 */
public final class TitanicStoreSettings {
    /** The name of the database file in {@link #directory()}. */
    public static final String DATABASE_FILE = "titanic.db";

    /** What a completed write survives. */
    public enum Durability {
        /**
         * The transaction is in the operating system's hands before the future completes (SQLite WAL
         * with {@code synchronous=NORMAL}: the log is written, not flushed to the disk): it survives
         * {@code kill -9} of the process, a JVM crash and a restart, but not the loss of the
         * machine's power or an operating-system crash. The write-ahead log is flushed at each
         * checkpoint, so at most the transactions since the last checkpoint are at risk then.
         */
        PROCESS_CRASH,
        /**
         * The transaction's log is flushed to the disk ({@code fsync}) before the future completes
         * (SQLite WAL with {@code synchronous=FULL}): it survives a power loss too, on a disk that
         * honours flushes. Costs one flush per group commit.
         */
        POWER_LOSS
    }

    private final Path directory;
    private final long maxEntries;
    private final long maxBytes;
    private final Durability durability;
    private final int maxBatch;
    private final int maxQueuedOperations;
    private final LongSupplier clock;

    private TitanicStoreSettings(Builder b) {
        directory = b.directory;
        maxEntries = b.maxEntries;
        maxBytes = b.maxBytes;
        durability = b.durability;
        maxBatch = b.maxBatch;
        maxQueuedOperations = b.maxQueuedOperations;
        clock = b.clock;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Settings with the defaults and the given directory. */
    public static TitanicStoreSettings in(Path directory) {
        return builder().directory(directory).build();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.directory = directory;
        b.maxEntries = maxEntries;
        b.maxBytes = maxBytes;
        b.durability = durability;
        b.maxBatch = maxBatch;
        b.maxQueuedOperations = maxQueuedOperations;
        b.clock = clock;
        return b;
    }

    /** The directory the store lives in (created when the store opens). Default {@code .titanic}. */
    public Path directory() {
        return directory;
    }

    /** The database file: {@link #DATABASE_FILE} in {@link #directory()}. */
    public Path databaseFile() {
        return directory.resolve(DATABASE_FILE);
    }

    /**
     * The most requests (with or without a reply) the store holds; a request past it fails with
     * {@link TitanicStoreFullException} (Titanic answers 500). Default 1,000,000.
     */
    public long maxEntries() {
        return maxEntries;
    }

    /**
     * The most bytes of request bodies and service names (as stored) the store admits requests up
     * to, replies counted in: a request that would pass it fails with
     * {@link TitanicStoreFullException}. Replies may take the store up to twice this bound, so a
     * store filled with requests can still take their replies (past twice it, a reply fails with
     * {@link TitanicStoreFullException} and its request stays pending). Default 1 GiB.
     */
    public long maxBytes() {
        return maxBytes;
    }

    /**
     * What a completed write survives. Default {@link Durability#PROCESS_CRASH}: it keeps Titanic's
     * promise ({@code kill -9} of the server loses no answered request) and, measured on a 2-core
     * virtual machine ({@code TitanicStoreBenchmark}), makes 5 to 10 times the durable submissions
     * per second of {@link Durability#POWER_LOSS} for a lone client and about twice with 100 clients
     * (both well above 10,000/s with 100 clients, thanks to group commit).
     */
    public Durability durability() {
        return durability;
    }

    /**
     * The most operations executed in one transaction (one durable write). A batch is whatever
     * queued while the previous transaction ran, up to this, so an idle store adds no delay.
     * Default 1,024.
     */
    public int maxBatch() {
        return maxBatch;
    }

    /**
     * The most operations waiting for the store's thread; one past it fails at once with
     * {@link TitanicStoreFullException} (the store is too busy). Default 100,000.
     */
    public int maxQueuedOperations() {
        return maxQueuedOperations;
    }

    /** Epoch milliseconds stored with each request and reply. Default {@link System#currentTimeMillis()}. */
    public LongSupplier clock() {
        return clock;
    }

    @Override
    public String toString() {
        return "TitanicStoreSettings[directory=" + directory + ", maxEntries=" + maxEntries + ", maxBytes="
                + maxBytes + ", durability=" + durability + ", maxBatch=" + maxBatch
                + ", maxQueuedOperations=" + maxQueuedOperations + "]";
    }

    public static final class Builder {
        private Path directory = Path.of(".titanic");
        private long maxEntries = 1_000_000;
        private long maxBytes = 1L << 30;
        private Durability durability = Durability.PROCESS_CRASH;
        private int maxBatch = 1024;
        private int maxQueuedOperations = 100_000;
        private LongSupplier clock = System::currentTimeMillis;

        private Builder() {
        }

        /** The directory the store lives in, created when the store opens. Default {@code .titanic}. */
        public Builder directory(Path d) {
            this.directory = Objects.requireNonNull(d);
            return this;
        }

        /** The most requests held (with or without replies). Default 1,000,000. */
        public Builder maxEntries(long n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxEntries must be at least 1");
            }
            this.maxEntries = n;
            return this;
        }

        /** The bound on stored bytes requests are admitted up to (replies may use as much again). Default 1 GiB. */
        public Builder maxBytes(long n) {
            if (n < 1 || n > Long.MAX_VALUE / 2) {
                throw new IllegalArgumentException("maxBytes must be between 1 and Long.MAX_VALUE / 2");
            }
            this.maxBytes = n;
            return this;
        }

        /** What a completed write survives. Default {@link Durability#PROCESS_CRASH}. */
        public Builder durability(Durability d) {
            this.durability = Objects.requireNonNull(d);
            return this;
        }

        /** The most operations in one transaction. Default 1,024. */
        public Builder maxBatch(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxBatch must be at least 1");
            }
            this.maxBatch = n;
            return this;
        }

        /** The most operations waiting for the store's thread. Default 100,000. */
        public Builder maxQueuedOperations(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxQueuedOperations must be at least 1");
            }
            this.maxQueuedOperations = n;
            return this;
        }

        /** Epoch milliseconds for the stored timestamps; tests drive retention with their own. */
        public Builder clock(LongSupplier epochMillis) {
            this.clock = Objects.requireNonNull(epochMillis);
            return this;
        }

        public TitanicStoreSettings build() {
            return new TitanicStoreSettings(this);
        }
    }
}
