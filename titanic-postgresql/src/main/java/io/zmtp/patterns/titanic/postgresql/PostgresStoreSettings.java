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
 *   <tr><td>password</td><td>the URL's, if it has one; else {@link Builder#password}'s; else the
 *       driver looks in the password file ({@code ~/.pgpass}, or the file {@code PGPASSFILE}
 *       names), as PostgreSQL's own tools do</td></tr>
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
    /** The URL without a password: what the driver may print in its messages. */
    private final String jdbcUrl;
    /** Given to the driver as a connection property only, never in the URL; null: none. */
    private final String password;
    private final long maxEntries;
    private final long maxBytes;
    private final Duration claimLease;
    private final int maxBatch;
    private final int maxQueuedOperations;
    private final LongSupplier clock;

    private PostgresStoreSettings(Builder b) {
        jdbcUrl = Objects.requireNonNull(b.jdbcUrl, "jdbcUrl");
        password = b.password;
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
        b.password = password;
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

    /**
     * The JDBC URL the store connects to, without a password (a password of the URL given to
     * {@link Builder#url} is taken out of it and passed to the driver as a property), so that
     * no message of the driver, which may repeat its URL, shows it.
     */
    public String jdbcUrl() {
        return jdbcUrl;
    }

    /** Whether a password is given (from the URL or {@link Builder#password}); it is never shown. */
    public boolean hasPassword() {
        return password != null;
    }

    /** The password for the driver's connection properties, or null: the driver's password file. */
    String password() {
        return password;
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

    /**
     * {@code message} with this store's password masked wherever it occurs, and any password a
     * URL in it holds: for what a driver or server says, which this code does not write.
     */
    public String redact(String message) {
        if (message == null) {
            return null;
        }
        String m = redacted(message);
        return password == null || password.isEmpty() ? m : m.replace(password, "***");
    }

    public static final class Builder {
        private String jdbcUrl;
        private String password;
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
         * {@code postgresql://[user[:password]@]host[:port]/database} URL (user and password
         * percent-decoded, as libpq does). A password in it (userinfo, or a {@code password}
         * parameter of a JDBC URL) is taken out of the URL and kept apart: see {@link #jdbcUrl()}.
         */
        public Builder url(String url) {
            if (!isUrl(url)) {
                throw new IllegalArgumentException("not a PostgreSQL URL (postgresql://... or jdbc:postgresql:...): "
                        + redacted(url));
            }
            if (url.startsWith("jdbc:")) {
                int q = url.indexOf('?');
                if (q < 0) {
                    this.jdbcUrl = url;
                    return this;
                }
                StringBuilder kept = new StringBuilder();
                for (String param : url.substring(q + 1).split("&", -1)) {
                    if (param.regionMatches(true, 0, "password=", 0, 9)) {
                        this.password = percentDecoded(param.substring(9));
                    } else if (!param.isEmpty()) {
                        kept.append(kept.length() == 0 ? "" : "&").append(param);
                    }
                }
                this.jdbcUrl = url.substring(0, q) + (kept.length() == 0 ? "" : "?" + kept);
                return this;
            }
            String rest = url.substring(url.indexOf("://") + 3);
            String user = null;
            int at = rest.lastIndexOf('@', rest.indexOf('/') < 0 ? rest.length() : rest.indexOf('/'));
            if (at >= 0) {
                String info = rest.substring(0, at);
                rest = rest.substring(at + 1);
                int colon = info.indexOf(':');
                user = colon < 0 ? info : info.substring(0, colon);
                if (colon >= 0) {
                    this.password = percentDecoded(info.substring(colon + 1));
                }
            }
            StringBuilder j = new StringBuilder("jdbc:postgresql://").append(rest);
            if (user != null && !user.isEmpty()) {
                j.append(rest.contains("?") ? "&" : "?").append("user=").append(user); // the driver decodes it
            }
            this.jdbcUrl = j.toString();
            return this;
        }

        /**
         * The password, when the URL has none (a password in a URL given to {@link #url} after
         * this replaces it); null: none, the driver looks in {@code ~/.pgpass} (or the file
         * {@code PGPASSFILE} names). Kept out of the URL and out of every message.
         */
        public Builder password(String password) {
            this.password = password;
            return this;
        }

        /** Percent-decoding as libpq does for URI parts ({@code +} stays a plus; a stray {@code %} stays). */
        private static String percentDecoded(String s) {
            if (s.indexOf('%') < 0) {
                return s;
            }
            java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
            int from = 0;
            for (int i = s.indexOf('%'); i >= 0 && i + 2 < s.length(); i = s.indexOf('%', i + 1)) {
                int hi = Character.digit(s.charAt(i + 1), 16);
                int lo = Character.digit(s.charAt(i + 2), 16);
                if (hi >= 0 && lo >= 0) {
                    bytes.writeBytes(s.substring(from, i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    bytes.write(hi * 16 + lo);
                    from = i + 3;
                    i += 2;
                }
            }
            bytes.writeBytes(s.substring(from).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
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
