package io.zmtp.patterns.titanic;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A {@link TitanicStore} in memory for the server's unit tests: its futures complete on a thread
 * of its own, as a real store's do; a bound on entries (full: {@link TitanicStoreFullException});
 * counters of what was asked.
 */
public final class InMemoryTitanicStore implements TitanicStore {
    private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "in-memory-titanic-store");
        t.setDaemon(true);
        return t;
    });
    private final int capacity;
    private final Map<String, Slot> slots = new LinkedHashMap<>();
    final AtomicInteger putReplies = new AtomicInteger();
    final AtomicInteger refusedReplies = new AtomicInteger();

    public InMemoryTitanicStore() {
        this(Integer.MAX_VALUE);
    }

    public InMemoryTitanicStore(int capacity) {
        this.capacity = capacity;
    }

    private static final class Slot {
        final String service;
        final List<byte[]> body;
        List<byte[]> reply;
        long repliedAt;

        Slot(String service, List<byte[]> body) {
            this.service = service;
            this.body = List.copyOf(body);
        }
    }

    private <T> CompletableFuture<T> on(Supplier<T> work) {
        return CompletableFuture.supplyAsync(work, thread);
    }

    @Override
    public CompletableFuture<Void> putRequest(String uuid, String service, List<byte[]> body) {
        List<byte[]> copy = new ArrayList<>(body);
        return on(() -> {
            if (slots.size() >= capacity) {
                throw new TitanicStoreFullException("in-memory store holds " + capacity);
            }
            slots.put(uuid, new Slot(service, copy));
            return null;
        });
    }

    @Override
    public CompletableFuture<Optional<StoredRequest>> request(String uuid) {
        return on(() -> Optional.ofNullable(slots.get(uuid)).map(s -> new StoredRequest(uuid, s.service, s.body)));
    }

    @Override
    public CompletableFuture<List<PendingRequest>> pendingRequests() {
        return on(() -> {
            List<PendingRequest> l = new ArrayList<>();
            slots.forEach((u, s) -> {
                if (s.reply == null) {
                    l.add(new PendingRequest(u, s.service));
                }
            });
            return l;
        });
    }

    @Override
    public CompletableFuture<Boolean> putReply(String uuid, List<byte[]> reply) {
        List<byte[]> copy = List.copyOf(reply);
        return on(() -> {
            putReplies.incrementAndGet();
            Slot s = slots.get(uuid);
            if (s == null || s.reply != null) {
                refusedReplies.incrementAndGet();
                return false;
            }
            s.reply = copy;
            s.repliedAt = System.currentTimeMillis();
            return true;
        });
    }

    @Override
    public CompletableFuture<ReplyLookup> reply(String uuid) {
        return on(() -> {
            Slot s = slots.get(uuid);
            if (s == null) {
                return new ReplyLookup.Unknown();
            }
            return s.reply == null ? new ReplyLookup.Pending() : new ReplyLookup.Ready(s.reply);
        });
    }

    @Override
    public CompletableFuture<Void> close(String uuid) {
        return on(() -> {
            slots.remove(uuid);
            return null;
        });
    }

    @Override
    public CompletableFuture<Integer> expireReplies(long storedAtOrBeforeMillis) {
        return on(() -> {
            int n = 0;
            var it = slots.values().iterator();
            while (it.hasNext()) {
                Slot s = it.next();
                if (s.reply != null && s.repliedAt <= storedAtOrBeforeMillis) {
                    it.remove();
                    n++;
                }
            }
            return n;
        });
    }

    @Override
    public CompletableFuture<Long> size() {
        return on(() -> (long) slots.size());
    }

    @Override
    public void close() {
        thread.shutdown();
    }
}
