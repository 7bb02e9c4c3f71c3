package io.zmtp.patterns.titanic.sqlite;

import io.zmtp.patterns.titanic.TitanicIds;
import io.zmtp.wire.Frames;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The process {@link StoreKillTest} kills: it writes to a store for ever and prints each operation
 * on stdout only once its future has completed, one line each, a letter and the uuid. Each request
 * has a fate chosen before it is stored, and its letters say it: {@code P} stored and left pending;
 * {@code A} stored, then {@code R} replied and left so; {@code B} stored, then {@code Q} replied, then
 * {@code C} closed. Arguments: the store's directory and its durability.
 */
public final class StoreWritingProcess {
    private static final byte[] PADDING = new byte[2048];

    private StoreWritingProcess() {
    }

    public static void main(String[] args) throws InterruptedException {
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.US_ASCII);
        SqliteTitanicStore store = SqliteTitanicStore.open(TitanicStoreSettings.builder()
                .directory(Path.of(args[0]))
                .durability(TitanicStoreSettings.Durability.valueOf(args[1]))
                .build());
        synchronized (out) {
            out.println("OPEN");
            out.flush();
        }
        Semaphore outstanding = new Semaphore(256);
        while (true) {
            outstanding.acquire();
            String uuid = TitanicIds.newId();
            int fate = ThreadLocalRandom.current().nextInt(6);
            // 2 KiB of padding: the write-ahead log fills fast, so kills land in checkpoints too
            store.putRequest(uuid, "echo", Frames.of(uuid.getBytes(StandardCharsets.US_ASCII), PADDING))
                    .thenCompose(v -> {
                        print(out, (fate == 0 ? "B " : fate == 1 ? "A " : "P ") + uuid);
                        if (fate > 1) {
                            return store.size().thenRun(() -> { });
                        }
                        return store.putReply(uuid, Frames.of(("re " + uuid).getBytes(StandardCharsets.US_ASCII)))
                                .thenCompose(stored -> {
                                    if (!stored) {
                                        throw new IllegalStateException("reply refused for " + uuid);
                                    }
                                    print(out, (fate == 0 ? "Q " : "R ") + uuid);
                                    if (fate == 0) {
                                        return store.close(uuid).thenRun(() -> print(out, "C " + uuid));
                                    }
                                    return store.size().thenRun(() -> { });
                                });
                    })
                    .whenComplete((v, e) -> {
                        if (e != null) {
                            e.printStackTrace();
                            System.exit(1);
                        }
                        outstanding.release();
                    });
        }
    }

    private static void print(PrintStream out, String line) {
        synchronized (out) {
            out.println(line);
            out.flush();
        }
    }
}
