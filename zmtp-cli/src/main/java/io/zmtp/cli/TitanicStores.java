package io.zmtp.cli;

import io.zmtp.patterns.titanic.sqlite.SqliteTitanicStore;
import io.zmtp.patterns.titanic.TitanicStore;
import io.zmtp.patterns.titanic.sqlite.TitanicStoreSettings;

import java.nio.file.Path;

/** Opens the durable Titanic store the commands use: SQLite in {@code dir}. */
final class TitanicStores {
    private TitanicStores() {
    }

    static TitanicStore open(Path dir, boolean fsync, long maxEntries) {
        return SqliteTitanicStore.open(TitanicStoreSettings.builder().directory(dir).maxEntries(maxEntries)
                .durability(fsync ? TitanicStoreSettings.Durability.POWER_LOSS : TitanicStoreSettings.Durability.PROCESS_CRASH)
                .build());
    }
}
