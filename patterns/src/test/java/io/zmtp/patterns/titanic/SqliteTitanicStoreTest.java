package io.zmtp.patterns.titanic;

import io.zmtp.patterns.titanic.TitanicStore.PendingRequest;
import io.zmtp.patterns.titanic.TitanicStore.ReplyLookup;
import io.zmtp.patterns.titanic.TitanicStore.StoredRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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

    static List<byte[]> frames(String... texts) {
        List<byte[]> frames = new ArrayList<>();
        for (String t : texts) {
            frames.add(t.getBytes(StandardCharsets.UTF_8));
        }
        return frames;
    }

    static List<String> texts(List<byte[]> frames) {
        List<String> texts = new ArrayList<>();
        for (byte[] f : frames) {
            texts.add(new String(f, StandardCharsets.UTF_8));
        }
        return texts;
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
        get(store.putRequest(uuid, "büro", body));
        StoredRequest stored = get(store.request(uuid)).orElseThrow();
        assertEquals("büro", stored.service());
        assertEquals(body.size(), stored.body().size());
        for (int i = 0; i < body.size(); i++) {
            assertArrayEquals(body.get(i), stored.body().get(i));
        }
        assertTrue(get(store.putReply(uuid, List.of())));
        assertEquals(List.of(), ((ReplyLookup.Ready) get(store.reply(uuid))).reply());
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
}
