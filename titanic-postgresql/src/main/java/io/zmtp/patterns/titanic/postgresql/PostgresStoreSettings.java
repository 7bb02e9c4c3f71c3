package io.zmtp.patterns.titanic.postgresql;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * The settings of a {@link PostgresTitanicStore}.
 *
 * <table>
 *   <caption>Defaults</caption>
 *   <tr><td>JDBC URL</td><td>none: required, {@code jdbc:postgresql://host:port/database?user=...}
 *       (or {@code postgresql://...}, which {@link #of} turns into one)</td></tr>
 *   <tr><td>max entries</td><td>1,000,000 requests (with or without their replies), all servers
 *       together</td></tr>
 *   <tr><td>max bytes</td><td>1 GiB of request bodies and service names; replies may take as much
 *       again</td></tr>
 *   <tr><td>claim lease</td><td>10 s: a server renews its claims every third of it; a dead
 *       server's claimed requests are taken over by another after at most this</td></tr>
 *   <tr><td>max batch</td><td>1,024 operations per transaction</td></tr>
 *   <tr><td>max queued operations</td><td>100,000 waiting for the store's thread</td></tr>
 *   <tr><td>clock</td><td>{@link System#currentTimeMillis()}: the epoch milliseconds stored with each
 *       reply, which retention compares</td></tr>
 * </table>
 *
 * <p>Several servers share the bounds; each checks them against the totals before its batch, so
 * together they may pass a bound by at most one batch each.
 */
public final class PostgresStoreSettings {
    private final String jdbcUrl;
    private final long maxEntries;
    private final long maxBytes;
    private final Duration claimLease;
    private final int maxBatch;
    private final int maxQueuedOperations;
    private final LongSupplier clock;

    private PostgresStoreSettings(Builder b) {
        jdbcUrl = Objects.requireNonNull(b.jdbcUrl, "jdbcUrl");
        maxEntries = b.maxEntries;
        maxBytes = b.maxBytes;
        claimLease = b.claimLease;
        maxBatch = b.maxBatch;
        maxQueuedOperations = b.maxQueuedOperations;
        clock = b.clock;
    }

    /** The defaults, on the database at {@code url}: a JDBC URL or a {@code postgresql://} URL. */
    public static PostgresStoreSettings of(String url) {
        return builder().url(url).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.jdbcUrl = jdbcUrl;
        b.maxEntries = maxEntries;
        b.maxBytes = maxBytes;
        b.claimLease = claimLease;
        b.maxBatch = maxBatch;
        b.maxQueuedOperations = maxQueuedOperations;
        b.clock = clock;
        return b;
    }

    /** Whether {@code store} names a PostgreSQL database ({@code postgresql://} or {@code jdbc:postgresql:}). */
    public static boolean isUrl(String store) {
        return store.startsWith("postgresql://") || store.startsWith("postgres://")
                || store.startsWith("jdbc:postgresql:");
    }

    public String jdbcUrl() {
        return jdbcUrl;
    }

    public long maxEntries() {
        return maxEntries;
    }

    public long maxBytes() {
        return maxBytes;
    }

    public Duration claimLease() {
        return claimLease;
    }

    public int maxBatch() {
        return maxBatch;
    }

    public int maxQueuedOperations() {
        return maxQueuedOperations;
    }

    public LongSupplier clock() {
        return clock;
    }

    /** Never shows a password of the URL. */
    @Override
    public String toString() {
        return "PostgresStoreSettings{" + redacted(jdbcUrl) + ", maxEntries=" + maxEntries + ", maxBytes=" + maxBytes
                + ", claimLease=" + claimLease + "}";
    }

    /** The URL without a password (userinfo or a password parameter). */
    static String redacted(String url) {
        return url.replaceAll("(?i)(password=)[^&]*", "$1***").replaceAll("//([^/@:]*):[^/@]*@", "//$1:***@");
    }

    public static final class Builder {
        private String jdbcUrl;
        private long maxEntries = 1_000_000;
        private long maxBytes = 1L << 30;
        private Duration claimLease = Duration.ofSeconds(10);
        private int maxBatch = 1024;
        private int maxQueuedOperations = 100_000;
        private LongSupplier clock = System::currentTimeMillis;

        private Builder() {
        }

        /**
         * The database: a JDBC URL ({@code jdbc:postgresql://...}) or a libpq-style
         * {@code postgresql://[user[:password]@]host[:port]/database} URL.
         */
        public Builder url(String url) {
            if (!isUrl(url)) {
                throw new IllegalArgumentException("not a PostgreSQL URL (postgresql://... or jdbc:postgresql:...): "
                        + redacted(url));
            }
            if (url.startsWith("jdbc:")) {
                this.jdbcUrl = url;
                return this;
            }
            String rest = url.substring(url.indexOf("://") + 3);
            String user = null;
            String password = null;
            int at = rest.lastIndexOf('@', rest.indexOf('/') < 0 ? rest.length() : rest.indexOf('/'));
            if (at >= 0) {
                String info = rest.substring(0, at);
                rest = rest.substring(at + 1);
                int colon = info.indexOf(':');
                user = colon < 0 ? info : info.substring(0, colon);
                password = colon < 0 ? null : info.substring(colon + 1);
            }
            StringBuilder j = new StringBuilder("jdbc:postgresql://").append(rest);
            String sep = rest.contains("?") ? "&" : "?";
            if (user != null && !user.isEmpty()) {
                j.append(sep).append("user=").append(user);
                sep = "&";
            }
            if (password != null) {
                j.append(sep).append("password=").append(password);
            }
            this.jdbcUrl = j.toString();
            return this;
        }

        public Builder maxEntries(long n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxEntries must be at least 1");
            }
            this.maxEntries = n;
            return this;
        }

        public Builder maxBytes(long n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxBytes must be at least 1");
            }
            this.maxBytes = n;
            return this;
        }

        /** How long a claimed request stays with a server that stopped renewing (at least 1 s). */
        public Builder claimLease(Duration d) {
            if (d.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new IllegalArgumentException("claimLease must be at least 1 s");
            }
            this.claimLease = d;
            return this;
        }

        public Builder maxBatch(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxBatch must be at least 1");
            }
            this.maxBatch = n;
            return this;
        }

        public Builder maxQueuedOperations(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxQueuedOperations must be at least 1");
            }
            this.maxQueuedOperations = n;
            return this;
        }

        public Builder clock(LongSupplier epochMillis) {
            this.clock = Objects.requireNonNull(epochMillis);
            return this;
        }

        public PostgresStoreSettings build() {
            return new PostgresStoreSettings(this);
        }
    }
}
