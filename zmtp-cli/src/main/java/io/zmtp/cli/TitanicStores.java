package io.zmtp.cli;

import io.zmtp.patterns.titanic.TitanicStore;
import io.zmtp.patterns.titanic.postgresql.PostgresStoreSettings;
import io.zmtp.patterns.titanic.postgresql.PostgresTitanicStore;
import io.zmtp.patterns.titanic.sqlite.SqliteTitanicStore;
import io.zmtp.patterns.titanic.sqlite.TitanicStoreSettings;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Opens the durable Titanic store the commands use: SQLite in a directory, or a PostgreSQL
 * database (a {@code postgresql://} or {@code jdbc:postgresql:} URL) that several servers share.
 */
final class TitanicStores {
    private TitanicStores() {
    }

    /** Whether the flags fit the store; the message names what does not. */
    static void check(String store, boolean fsync, Duration claimLease) {
        if (PostgresStoreSettings.isUrl(store)) {
            if (fsync) {
                throw new IllegalArgumentException("--fsync applies to the SQLite store; PostgreSQL's durability is "
                        + "its server's (a commit waits for its log flush by default)");
            }
            PostgresStoreSettings.builder().url(store).claimLease(claimLease);
        }
    }

    /**
     * Opens the store. A PostgreSQL URL without a password takes {@code PGPASSWORD} from the
     * environment, as libpq does; without either the driver reads {@code ~/.pgpass} (or the file
     * {@code PGPASSFILE} names). The failure's message never holds the password.
     */
    static TitanicStore open(String store, boolean fsync, long maxEntries, Duration claimLease) {
        if (PostgresStoreSettings.isUrl(store)) {
            PostgresStoreSettings settings = postgres(store).maxEntries(maxEntries).claimLease(claimLease).build();
            try {
                return PostgresTitanicStore.open(settings);
            } catch (RuntimeException e) {
                throw new IllegalStateException(settings.redact(CommandSupport.reasons(e)));
            }
        }
        return open(Path.of(store), fsync, maxEntries);
    }

    /** The PostgreSQL settings of the URL, with {@code PGPASSWORD} when the URL has no password. */
    static PostgresStoreSettings.Builder postgres(String url) {
        PostgresStoreSettings.Builder b = PostgresStoreSettings.builder().url(url);
        if (!b.build().hasPassword()) {
            String env = System.getenv("PGPASSWORD");
            if (env != null && !env.isEmpty()) {
                b.password(env);
            }
        }
        return b;
    }

    static TitanicStore open(Path dir, boolean fsync, long maxEntries) {
        return SqliteTitanicStore.open(TitanicStoreSettings.builder().directory(dir).maxEntries(maxEntries)
                .durability(fsync ? TitanicStoreSettings.Durability.POWER_LOSS : TitanicStoreSettings.Durability.PROCESS_CRASH)
                .build());
    }

    /** The store for messages: a directory, or the JDBC URL without its password. */
    static String describe(String store) {
        return PostgresStoreSettings.isUrl(store) ? PostgresStoreSettings.builder().url(store).build().jdbcUrl()
                : "in " + store;
    }
}
