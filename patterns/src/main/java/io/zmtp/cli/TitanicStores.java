package io.zmtp.cli;

import io.zmtp.patterns.titanic.TitanicStore;

import java.nio.file.Path;

/** Opens the durable Titanic store the commands use. */
final class TitanicStores {
    private TitanicStores() {
    }

    static TitanicStore open(Path dir) {
        throw new UnsupportedOperationException("the durable store is not merged yet");
    }
}
