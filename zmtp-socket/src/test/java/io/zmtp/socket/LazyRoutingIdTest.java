package io.zmtp.socket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.zmtp.wire.LazyFrame;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.zmtp.socket.SocketTesting.T;
import static io.zmtp.socket.SocketTesting.awaitPeers;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A ROUTER puts each peer's routing id in front of its messages by reference: routed back as it
 * is, or replaced by {@link RoutingId#frame()}, no buffer is made of it; read as a buffer, it is
 * the peer's id, on the loop and on a user's thread alike.
 */
class LazyRoutingIdTest extends ContextTest {

    @Test
    void aReceivedIdRoutesTheMessageBackWithoutABuffer() throws Exception {
        ZmtpSocket router = ctx.socket(SocketType.ROUTER);
        CompletableFuture<String> seen = new CompletableFuture<>();
        router.onMessage(m -> {
            LazyFrame id = m.lazyFirst();
            seen.complete(id == null ? "no lazy id" : new String(id.bytes(), StandardCharsets.US_ASCII));
            router.send(m); // routed by the id it arrived with
        });
        String ep = router.bind("tcp://127.0.0.1:0").syncUninterruptibly().getNow();
        BlockingSocket dealer = ctx.blocking(SocketType.DEALER, SocketOptions.builder().identity("D1").build()).connect(ep);
        awaitPeers(router, 1);
        dealer.send("echo me");
        assertEquals("D1", seen.get(T.toMillis(), TimeUnit.MILLISECONDS));
        assertEquals(List.of("echo me"), dealer.receiveStrings(T));
    }

    @Test
    void anApplicationIdFrameRoutesByTheIdItself() {
        BlockingSocket router = ctx.blocking(SocketType.ROUTER);
        String ep = router.bind("tcp://127.0.0.1:0");
        BlockingSocket dealer = ctx.blocking(SocketType.DEALER, SocketOptions.builder().identity("worker-7").build()).connect(ep);
        awaitPeers(router.socket(), 1);
        LazyFrame to = RoutingId.ofText("worker-7").frame();
        router.send(ZmtpMessage.ofStrings("job").addFirst(to));
        assertEquals(List.of("job"), dealer.receiveStrings(T));
        assertEquals("worker-7", new String(to.bytes(), StandardCharsets.US_ASCII));
    }

    @Test
    void readOnAUserThreadTheIdIsACopyOfThePeersId() {
        BlockingSocket router = ctx.blocking(SocketType.ROUTER);
        String ep = router.bind("tcp://127.0.0.1:0");
        BlockingSocket dealer = ctx.blocking(SocketType.DEALER, SocketOptions.builder().identity("abc").build()).connect(ep);
        dealer.send("hello");
        ZmtpMessage m = router.receive(T);
        assertNotNull(m);
        assertInstanceOf(RoutingId.Frame.class, m.lazyFirst());
        ByteBuf id = m.frame(0); // made here, on the user's thread
        assertEquals("abc", id.toString(StandardCharsets.US_ASCII));
        assertEquals("hello", m.frameString(1));
        router.send(m); // routed by the buffer now
        assertEquals(List.of("hello"), dealer.receiveStrings(T));
    }

    @Test
    void readOnThePeersLoopTheIdIsADuplicateOfItsPooledIdBuffer() throws Exception {
        ZmtpSocket router = ctx.socket(SocketType.ROUTER);
        CompletableFuture<String> made = new CompletableFuture<>();
        router.onMessage(m -> {
            ByteBuf id = m.removeFirst();
            made.complete(id.toString(StandardCharsets.US_ASCII) + " " + (id.unwrap() != null));
            id.release();
            m.release();
        });
        String ep = router.bind("tcp://127.0.0.1:0").syncUninterruptibly().getNow();
        BlockingSocket dealer = ctx.blocking(SocketType.DEALER, SocketOptions.builder().identity("pooled").build()).connect(ep);
        dealer.send("x");
        assertEquals("pooled true", made.get(T.toMillis(), TimeUnit.MILLISECONDS), "a derived buffer of the peer's id buffer");
    }

    @Test
    void takenOffAMessageTheIdIsThePeersOwnIdObject() throws Exception {
        ZmtpSocket router = ctx.socket(SocketType.ROUTER);
        CompletableFuture<RoutingId> first = new CompletableFuture<>();
        CompletableFuture<RoutingId> second = new CompletableFuture<>();
        router.onMessage(m -> {
            RoutingId id = RoutingId.removeFirst(m);
            String body = m.frameString(0);
            m.release();
            (first.isDone() ? second : first).complete(id);
            router.send(ZmtpMessage.ofStrings("re " + body).addFirst(id.frame()));
        });
        String ep = router.bind("tcp://127.0.0.1:0").syncUninterruptibly().getNow();
        BlockingSocket dealer = ctx.blocking(SocketType.DEALER, SocketOptions.builder().identity("D9").build()).connect(ep);
        dealer.send("a");
        assertEquals(List.of("re a"), dealer.receiveStrings(T));
        dealer.send("b");
        assertEquals(List.of("re b"), dealer.receiveStrings(T));
        RoutingId a = first.get(T.toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(RoutingId.ofText("D9"), a);
        assertTrue(a == second.get(T.toMillis(), TimeUnit.MILLISECONDS), "the same object both times: no copy");
    }

    @Test
    void takenOffAnIdThatIsABufferTheIdIsACopyAndTheBufferIsReleased() {
        ByteBuf frame = PooledByteBufAllocator.DEFAULT.buffer(2).writeBytes(new byte[] {'x', 'y'});
        ZmtpMessage m = ZmtpMessage.of(frame, Unpooled.copiedBuffer("body", StandardCharsets.US_ASCII));
        assertEquals(RoutingId.ofText("xy"), RoutingId.removeFirst(m));
        assertEquals(0, frame.refCnt(), "the id's buffer released");
        assertEquals("body", m.frameString(0));
        m.release();
    }
}
