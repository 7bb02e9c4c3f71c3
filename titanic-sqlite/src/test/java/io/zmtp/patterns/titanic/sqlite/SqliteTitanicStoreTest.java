package io.zmtp.patterns.titanic.sqlite;

import io.zmtp.patterns.titanic.TitanicStore;
import io.zmtp.patterns.titanic.TitanicStoreFullException;
import io.zmtp.patterns.titanic.TitanicIds;

import io.zmtp.patterns.titanic.TitanicStore.PendingRequest;
import io.zmtp.patterns.titanic.TitanicStore.ReplyLookup;
import io.zmtp.patterns.titanic.TitanicStore.StoredRequest;
import io.zmtp.wire.Frames;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static io.zmtp.patterns.PatternTesting.get;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SqliteTitanicStoreTest {
    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(1_000_000);
    private final List<SqliteTitanicStore> opened = new ArrayList<>();

    @AfterEach
    void closeStores() {
        opened.forEach(SqliteTitanicStore::close);
    }

    private TitanicStoreSettings.Builder settings() {
        return TitanicStoreSettings.builder().directory(dir.resolve("store")).clock(now::get);
    }

    private SqliteTitanicStore open(TitanicStoreSettings s) {
        SqliteTitanicStore store = SqliteTitanicStore.open(s);
        opened.add(store);
        return store;
    }

    private SqliteTitanicStore open() {
        return open(settings().build());
    }

    static Frames frames(String... texts) {
        return Frames.ofStrings(texts);
    }

    static List<String> texts(Frames frames) {
        return frames.toStrings();
    }

    /** The exception the future failed with, failing the test if it completes normally or not in time. */
    static Throwable failure(CompletableFuture<?> f) {
        Object outcome = get(f.handle((v, t) -> t != null ? t : "completed normally with " + v));
        if (outcome instanceof CompletionException e && e.getCause() != null) {
            return e.getCause();
        }
        return assertInstanceOf(Throwable.class, outcome);
    }

    @Test
    void aStoredRequestIsReturnedPendingUntilItsReplyThenTheReplyUntilClosed() {
        SqliteTitanicStore store = open();
        String uuid = TitanicIds.newId();
        get(store.putRequest(uuid, "echo", frames("hello", "", "world")));

        StoredRequest request = get(store.request(uuid)).orElseThrow();
        assertEquals(uuid, request.uuid());
        assertEquals("echo", request.service());
        assertEquals(List.of("hello", "", "world"), texts(request.body()));
        assertEquals(List.of(new PendingRequest(uuid, "echo")), get(store.pendingRequests()));
        assertInstanceOf(ReplyLookup.Pending.class, get(store.reply(uuid)));
        assertEquals(1L, get(store.size()));

        assertTrue(get(store.putReply(uuid, frames("HELLO", "WORLD"))));
        assertEquals(List.of(), get(store.pendingRequests()));
        for (int i = 0; i < 3; i++) { // idempotent
            ReplyLookup lookup = get(store.reply(uuid));
            assertEquals(List.of("HELLO", "WORLD"), texts(assertInstanceOf(ReplyLookup.Ready.class, lookup).reply()));
        }

        get(store.close(uuid));
        assertInstanceOf(ReplyLookup.Unknown.class, get(store.reply(uuid)));
        assertEquals(Optional.empty(), get(store.request(uuid)));
        assertEquals(0L, get(store.size()));
        assertEquals(0L, get(store.storedBytes()));
    }

    @Test
    void theFirstReplyStaysALateOneIsRefused() {
        SqliteTitanicStore store = open();
        String uuid = TitanicIds.newId();
        get(store.putRequest(uuid, "echo", frames("q")));
        assertTrue(get(store.putReply(uuid, frames("first"))));
        assertFalse(get(store.putReply(uuid, frames("second", "longer"))));
        ReplyLookup lookup = get(store.reply(uuid));
        assertEquals(List.of("first"), texts(((ReplyLookup.Ready) lookup).reply()));
    }

    @Test
    void aReplyToAnUnknownOrClosedRequestIsRefused() {
        SqliteTitanicStore store = open();
        assertFalse(get(store.putReply(TitanicIds.newId(), frames("r"))));
        assertFalse(get(store.putReply("not a uuid", frames("r"))));
        String uuid = TitanicIds.newId();
        get(store.putRequest(uuid, "echo", frames("q")));
        get(store.close(uuid));
        assertFalse(get(store.putReply(uuid, frames("r"))));
        assertEquals(0L, get(store.size()));
    }

    @Test
    void closeSucceedsForUnknownAndInvalidUuidsAndUnknownLooksUpAsUnknown() {
        SqliteTitanicStore store = open();
        get(store.close(TitanicIds.newId()));
        get(store.close("nonsense"));
        get(store.close(null));
        assertInstanceOf(ReplyLookup.Unknown.class, get(store.reply(TitanicIds.newId())));
        assertInstanceOf(ReplyLookup.Unknown.class, get(store.reply("xyz")));
        assertEquals(Optional.empty(), get(store.request(TitanicIds.newId())));
    }

    @Test
    void uuidsAreMatchedWhateverTheirCase() {
        SqliteTitanicStore store = open();
        String uuid = TitanicIds.newId();
        get(store.putRequest(uuid.toUpperCase(), "echo", frames("q")));
        assertEquals(List.of(new PendingRequest(uuid, "echo")), get(store.pendingRequests()));
        assertTrue(get(store.putReply(uuid, frames("r"))));
        assertInstanceOf(ReplyLookup.Ready.class, get(store.reply(uuid.toUpperCase())));
    }

    @Test
    void anInvalidOrDuplicateRequestFailsAndStoresNothingMore() {
        SqliteTitanicStore store = open();
        assertInstanceOf(IllegalArgumentException.class, failure(store.putRequest("short", "echo", frames("q"))));
        String uuid = TitanicIds.newId();
        get(store.putRequest(uuid, "echo", frames("q")));
        assertInstanceOf(IllegalArgumentException.class, failure(store.putRequest(uuid, "other", frames("x"))));
        assertEquals("echo", get(store.request(uuid)).orElseThrow().service());
        assertEquals(1L, get(store.size()));
    }

    @Test
    void pendingRequestsComeInArrivalOrder() {
        SqliteTitanicStore store = open();
        List<PendingRequest> expected = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            String uuid = TitanicIds.newId();
            get(store.putRequest(uuid, "s" + (i % 3), frames("q" + i)));
            expected.add(new PendingRequest(uuid, "s" + (i % 3)));
        }
        // replies and closes in between do not disturb the order of the rest
        assertTrue(get(store.putReply(expected.get(10).uuid(), frames("r"))));
        get(store.close(expected.get(20).uuid()));
        get(store.close(expected.get(49).uuid()));
        String last = TitanicIds.newId();
        get(store.putRequest(last, "s9", frames("late")));
        expected.remove(49);
        expected.remove(20);
        expected.remove(10);
        expected.add(new PendingRequest(last, "s9"));
        assertEquals(expected, get(store.pendingRequests()));
    }

    @Test
    void framesOfAnySizeAndCountRoundTrip() {
        SqliteTitanicStore store = open();
        List<byte[]> body = new ArrayList<>();
        body.add(new byte[0]);
        byte[] big = new byte[300_000];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 31);
        }
        body.add(big);
        for (int i = 0; i < 200; i++) {
            body.add(new byte[] {(byte) i});
        }
        String uuid = TitanicIds.newId();
        get(store.putRequest(uuid, "büro", Frames.of(body)));
        StoredRequest stored = get(store.request(uuid)).orElseThrow();
        assertEquals("büro", stored.service());
        assertEquals(body.size(), stored.body().size());
        for (int i = 0; i < body.size(); i++) {
            assertArrayEquals(body.get(i), stored.body().frame(i));
        }
        assertTrue(get(store.putReply(uuid, Frames.empty())));
        assertEquals(Frames.empty(), ((ReplyLookup.Ready) get(store.reply(uuid))).reply());
    }

    @Test
    void reopeningTheDirectoryKeepsEverythingAndTheExactCounts() {
        SqliteTitanicStore store = open();
        String pending = TitanicIds.newId();
        String replied = TitanicIds.newId();
        String closed = TitanicIds.newId();
        get(store.putRequest(pending, "a", frames("p")));
        get(store.putRequest(replied, "b", frames("q", "q2")));
        get(store.putRequest(closed, "c", frames("c")));
        get(store.putReply(replied, frames("answer")));
        get(store.close(closed));
        long bytes = get(store.storedBytes());
        store.close();

        SqliteTitanicStore again = open();
        assertEquals(List.of(new PendingRequest(pending, "a")), get(again.pendingRequests()));
        assertEquals(List.of("answer"), texts(((ReplyLookup.Ready) get(again.reply(replied))).reply()));
        assertEquals(List.of("q", "q2"), texts(get(again.request(replied)).orElseThrow().body()));
        assertInstanceOf(ReplyLookup.Unknown.class, get(again.reply(closed)));
        assertEquals(2L, get(again.size()));
        assertEquals(bytes, get(again.storedBytes()));
        assertFalse(get(again.putReply(replied, frames("late"))));
    }

    @Test
    void aSecondStoreOnTheSameDirectoryIsRefusedAndClosingReleasesIt() {
        SqliteTitanicStore store = open();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> open());
        assertTrue(e.getMessage().contains("open elsewhere"), e.getMessage());
        store.close();
        open().close();
    }

    @Test
    void operationsAfterCloseFailAndCloseIsIdempotent() {
        SqliteTitanicStore store = open();
        store.close();
        store.close();
        assertInstanceOf(IllegalStateException.class, failure(store.size()));
        assertInstanceOf(IllegalStateException.class,
                failure(store.putRequest(TitanicIds.newId(), "echo", frames("q"))));
    }

    @Test
    void closeCommitsWhatWasQueued() {
        SqliteTitanicStore store = open();
        List<CompletableFuture<Void>> puts = new ArrayList<>();
        List<String> uuids = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            String uuid = TitanicIds.newId();
            uuids.add(uuid);
            puts.add(store.putRequest(uuid, "echo", frames("q" + i)));
        }
        store.close();
        puts.forEach(f -> get(f));
        SqliteTitanicStore again = open();
        assertEquals(uuids, get(again.pendingRequests()).stream().map(PendingRequest::uuid).toList());
    }
    @Test
    void aRequestPastMaxEntriesFailsAndStoresNothingUntilACloseFreesRoom() {
        SqliteTitanicStore store = open(settings().maxEntries(3).build());
        List<String> uuids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            uuids.add(TitanicIds.newId());
            get(store.putRequest(uuids.get(i), "echo", frames("q")));
        }
        String refused = TitanicIds.newId();
        Throwable full = failure(store.putRequest(refused, "echo", frames("q")));
        assertInstanceOf(TitanicStoreFullException.class, full);
        assertTrue(full.getMessage().contains("maxEntries 3"), full.getMessage());
        assertEquals(Optional.empty(), get(store.request(refused)));
        assertEquals(3L, get(store.size()));

        // a reply does not count as another entry; a close frees one
        assertTrue(get(store.putReply(uuids.get(0), frames("r"))));
        get(store.close(uuids.get(1)));
        get(store.putRequest(refused, "echo", frames("q")));
        assertEquals(3L, get(store.size()));
        assertInstanceOf(TitanicStoreFullException.class,
                failure(store.putRequest(TitanicIds.newId(), "echo", frames("q"))));
    }

    @Test
    void maxBytesBoundsRequestsAndRepliesHaveAsMuchAgainSoAFullStoreCanStillBeAnswered() {
        // a request of service "s" and one 40-byte frame is stored as 1 + (1 + 1 + 40) = 43 bytes
        SqliteTitanicStore store = open(settings().maxBytes(100).build());
        String a = TitanicIds.newId();
        String b = TitanicIds.newId();
        get(store.putRequest(a, "s", Frames.of(new byte[40])));
        get(store.putRequest(b, "s", Frames.of(new byte[40])));
        assertEquals(86L, get(store.storedBytes()));
        String c = TitanicIds.newId();
        Throwable full = failure(store.putRequest(c, "s", Frames.of(new byte[40])));
        assertInstanceOf(TitanicStoreFullException.class, full);
        assertTrue(full.getMessage().contains("maxBytes 100"), full.getMessage());
        assertEquals(Optional.empty(), get(store.request(c)));

        // replies: a 98-byte frame is stored as 100 bytes; the first fits under 2 x maxBytes (186)
        assertTrue(get(store.putReply(a, Frames.of(new byte[98]))));
        assertEquals(186L, get(store.storedBytes()));
        // the second would pass it (286): refused, the request stays pending
        assertInstanceOf(TitanicStoreFullException.class, failure(store.putReply(b, Frames.of(new byte[98]))));
        assertEquals(List.of(new PendingRequest(b, "s")), get(store.pendingRequests()));
        // a late reply to an answered request is still just refused, not "full"
        assertFalse(get(store.putReply(a, Frames.of(new byte[98]))));

        get(store.close(a));
        assertEquals(43L, get(store.storedBytes()));
        assertTrue(get(store.putReply(b, Frames.of(new byte[98]))));
        assertInstanceOf(TitanicStoreFullException.class,
                failure(store.putRequest(c, "s", Frames.of(new byte[40]))));
        get(store.close(b));
        get(store.putRequest(c, "s", Frames.of(new byte[40])));
        assertEquals(43L, get(store.storedBytes()));
    }

    @Test
    void aRequestLargerThanTheWholeStoreIsRefused() {
        SqliteTitanicStore store = open(settings().maxBytes(1000).build());
        assertInstanceOf(TitanicStoreFullException.class,
                failure(store.putRequest(TitanicIds.newId(), "s", Frames.of(new byte[1000]))));
        assertEquals(0L, get(store.size()));
    }

    @Test
    void retentionDeletesRepliesStoredAtOrBeforeTheCutOffAndNothingPending() {
        SqliteTitanicStore store = open();
        String early = TitanicIds.newId();
        String late = TitanicIds.newId();
        String pending = TitanicIds.newId();
        now.set(1_000);
        get(store.putRequest(early, "s", frames("1")));
        get(store.putRequest(late, "s", frames("2")));
        get(store.putRequest(pending, "s", frames("3")));
        now.set(2_000);
        assertTrue(get(store.putReply(early, frames("r1"))));
        now.set(3_000);
        assertTrue(get(store.putReply(late, frames("r2"))));
        long before = get(store.storedBytes());

        assertEquals(0, get(store.expireReplies(1_999)));
        assertEquals(1, get(store.expireReplies(2_000)));
        assertInstanceOf(ReplyLookup.Unknown.class, get(store.reply(early)));
        assertInstanceOf(ReplyLookup.Ready.class, get(store.reply(late)));
        assertEquals(2L, get(store.size()));
        assertTrue(get(store.storedBytes()) < before);

        now.set(1_000_000);
        assertEquals(1, get(store.expireReplies(now.get())));
        assertEquals(List.of(new PendingRequest(pending, "s")), get(store.pendingRequests()));
        assertEquals(1L, get(store.size()));
        // the counts stay exact: reopening counts the same
        long bytes = get(store.storedBytes());
        store.close();
        SqliteTitanicStore again = open();
        assertEquals(1L, get(again.size()));
        assertEquals(bytes, get(again.storedBytes()));
    }

    /** Holds the store's thread (inside an operation) until released. */
    private static CountDownLatch holdStoreThread(SqliteTitanicStore store) {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        store.runOnStoreThread(() -> {
            held.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            assertTrue(held.await(10, TimeUnit.SECONDS), "the store's thread runs the holding operation");
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        return release;
    }

    @Test
    void requestsQueuedTogetherAreCommittedInOneTransaction() {
        SqliteTitanicStore store = open();
        CountDownLatch release = holdStoreThread(store);
        long commitsBefore = store.commits();
        List<CompletableFuture<Void>> puts = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            puts.add(store.putRequest(TitanicIds.newId(), "echo", frames("q" + i)));
        }
        assertFalse(puts.get(0).isDone(), "nothing completes before its commit");
        release.countDown();
        puts.forEach(f -> get(f));
        // the holding operation's transaction, then one for the 1000 requests
        assertEquals(commitsBefore + 1 + 1, store.commits(), "1000 queued requests, one transaction");
        assertEquals(1000L, get(store.size()));
    }

    @Test
    void aBatchHoldsAtMostMaxBatchOperations() {
        SqliteTitanicStore store = open(settings().maxBatch(100).build());
        CountDownLatch release = holdStoreThread(store);
        long commitsBefore = store.commits();
        List<CompletableFuture<Void>> puts = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            puts.add(store.putRequest(TitanicIds.newId(), "echo", frames("q" + i)));
        }
        release.countDown();
        puts.forEach(f -> get(f));
        assertEquals(commitsBefore + 1 + 10, store.commits(), "the holding operation's, then 10 of 100");
    }

    @Test
    void manyConcurrentSubmittersShareTransactions() throws Exception {
        SqliteTitanicStore store = open();
        long commitsBefore = store.commits();
        int threads = 8;
        int perThread = 250;
        List<Thread> submitters = new ArrayList<>();
        List<CompletableFuture<Void>> puts = java.util.Collections.synchronizedList(new ArrayList<>());
        CountDownLatch start = new CountDownLatch(1);
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    puts.add(store.putRequest(TitanicIds.newId(), "echo", frames("q")));
                }
            });
            thread.start();
            submitters.add(thread);
        }
        start.countDown();
        for (Thread thread : submitters) {
            thread.join(10_000);
        }
        assertEquals(threads * perThread, puts.size());
        puts.forEach(f -> get(f));
        long commits = store.commits() - commitsBefore;
        assertTrue(commits < threads * perThread / 2,
                commits + " transactions for " + threads * perThread + " requests submitted at once");
    }

    @Test
    void operationsPastMaxQueuedOperationsFailAtOnce() {
        SqliteTitanicStore store = open(settings().maxQueuedOperations(10).build());
        CountDownLatch release = holdStoreThread(store);
        List<CompletableFuture<Void>> puts = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            puts.add(store.putRequest(TitanicIds.newId(), "echo", frames("q")));
        }
        Throwable busy = failure(store.putRequest(TitanicIds.newId(), "echo", frames("q")));
        assertInstanceOf(TitanicStoreFullException.class, busy);
        assertTrue(busy.getMessage().contains("maxQueuedOperations"), busy.getMessage());
        release.countDown();
        puts.forEach(f -> get(f));
        assertEquals(10L, get(store.size()));
    }
    @Test
    void retentionDeletesInChunksAndCountsThemAll() {
        SqliteTitanicStore store = open();
        int n = SqliteTitanicStore.EXPIRY_CHUNK * 2 + 17;
        List<CompletableFuture<Boolean>> replies = new ArrayList<>();
        String kept = TitanicIds.newId();
        get(store.putRequest(kept, "s", frames("pending")));
        for (int i = 0; i < n; i++) {
            String uuid = TitanicIds.newId();
            replies.add(store.putRequest(uuid, "s", frames("q")).thenCompose(v -> store.putReply(uuid, frames("r"))));
        }
        replies.forEach(f -> assertTrue(get(f)));
        long commitsBefore = store.commits();
        assertEquals(n, get(store.expireReplies(now.get())));
        assertEquals(3, store.commits() - commitsBefore, "three chunks, one transaction each");
        assertEquals(1L, get(store.size()));
        assertEquals(List.of(new PendingRequest(kept, "s")), get(store.pendingRequests()));
    }

    @Test
    void aFailingOperationFailsAloneItsBatchIsRetriedOneByOne() {
        SqliteTitanicStore store = open();
        CountDownLatch release = holdStoreThread(store);
        List<CompletableFuture<Void>> puts = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            puts.add(store.putRequest(TitanicIds.newId(), "echo", frames("q" + i)));
        }
        CompletableFuture<Void> bad = store.executeSql("INSERT INTO no_such_table VALUES (1)");
        String closed = TitanicIds.newId();
        puts.add(store.putRequest(closed, "echo", frames("q")));
        CompletableFuture<Void> close = store.close(closed);
        for (int i = 0; i < 10; i++) {
            puts.add(store.putRequest(TitanicIds.newId(), "echo", frames("q" + i)));
        }
        release.countDown();
        assertInstanceOf(java.sql.SQLException.class, failure(bad));
        puts.forEach(f -> get(f));
        get(close);
        assertEquals(20L, get(store.size()));
        long bytes = get(store.storedBytes());
        store.close();
        SqliteTitanicStore again = open();
        assertEquals(20L, get(again.size()));
        assertEquals(bytes, get(again.storedBytes()));
    }
    @Test
    void aFileThatIsNotAStoreIsRefusedClearlyAndLeavesTheDirectoryFree() throws Exception {
        Path storeDir = dir.resolve("store");
        java.nio.file.Files.createDirectories(storeDir);
        Path db = storeDir.resolve(TitanicStoreSettings.DATABASE_FILE);
        java.nio.file.Files.write(db, new byte[8192]); // zeros: not an SQLite database
        java.io.UncheckedIOException e = assertThrows(java.io.UncheckedIOException.class, () -> open());
        assertTrue(e.getMessage().contains("cannot open the Titanic store in " + storeDir), e.getMessage());
        java.nio.file.Files.delete(db);
        SqliteTitanicStore store = open(); // the lock was released
        assertEquals(0L, get(store.size()));
    }
}
