package io.zmtp.security;

import io.zmtp.testing.CodecHarness;
import io.zmtp.testing.CodecPair;
import io.zmtp.testing.PeerBytes;
import io.zmtp.wire.ConnectionFailed;
import io.zmtp.wire.InboundBudget;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpOptions;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Seeded fuzzing of the frame decoder and of each handshake (NULL; PLAIN and CURVE, server and
 * client sides). Each target starts from a valid transcript of what its codec receives (recorded
 * from a real exchange, deterministic: CURVE's randomness is seeded), mutates it (flipped,
 * inserted, removed, duplicated bytes; truncation; random frames; changed lengths) and feeds it in
 * random pieces. After each case: no exception escaped the codec, the connection is either alive
 * or was closed with a {@link ConnectionFailed} reason, the inbound budget is back to zero once
 * the connection is gone, and (checked by LeakCheck after the test) no buffer leaked.
 *
 * <p>{@value #DEFAULT_ITERATIONS} cases per target by default (well under a minute in CI);
 * {@code -Dzmtp.fuzz.iterations=N} runs N per target, {@code -Dzmtp.fuzz.seed=S} another seed.
 */
class ProtocolFuzzTest {
    static final int DEFAULT_ITERATIONS = 300;
    static final int ITERATIONS = Integer.getInteger("zmtp.fuzz.iterations", DEFAULT_ITERATIONS);
    static final long SEED = Long.getLong("zmtp.fuzz.seed", 20261123L);

    static final CurveKeyPair SERVER = CurveHandshakeTest.SERVER;
    static final CurveKeyPair CLIENT = CurveHandshakeTest.CLIENT;
    static final Authenticator ACCOUNTS = Authenticator.plainAccounts(Map.of("admin", "secret"));

    /** Options for a new victim, each with a budget of its own to check. */
    static ZmtpOptions.Builder base(SocketType type) {
        return ZmtpOptions.builder(type).inboundBudget(new InboundBudget(1024 * 1024)).maxMessageSize(256 * 1024)
                .maxFramesPerMessage(64);
    }

    static Supplier<ZmtpOptions> curveServer() {
        return () -> base(SocketType.ROUTER).mechanism(CurveMechanism.server(SERVER,
                CurveAllowList.of(List.of(CLIENT.publicKey())), new FixedRandom(2), () -> 0L, 60_000_000_000L)).build();
    }

    static Supplier<ZmtpOptions> curveClient() {
        return () -> base(SocketType.DEALER).mechanism(CurveMechanism.client(SERVER.publicKey(), CLIENT,
                new FixedRandom(1))).build();
    }

    static Supplier<ZmtpOptions> plainServer() {
        return () -> base(SocketType.ROUTER).mechanism(PlainMechanism.server(ACCOUNTS)).build();
    }

    static Supplier<ZmtpOptions> plainClient() {
        return () -> base(SocketType.DEALER).mechanism(PlainMechanism.client("admin", "secret")).build();
    }

    static Supplier<ZmtpOptions> nullDealer() {
        return () -> base(SocketType.DEALER).build();
    }

    static Supplier<ZmtpOptions> nullRouter() {
        return () -> base(SocketType.ROUTER).build();
    }

    /** What each side receives in a real exchange between fresh codecs, then some traffic both ways. */
    static byte[][] transcript(Supplier<ZmtpOptions> client, Supplier<ZmtpOptions> server) {
        try (CodecPair p = new CodecPair(client.get(), server.get())) {
            p.pump();
            assertNotNull(p.client.handshake(), "the recorded exchange completes");
            assertNotNull(p.server.handshake());
            for (int i = 0; i < 3; i++) {
                p.client.channel.writeAndFlush(io.zmtp.wire.ZmtpMessage.ofStrings("a" + i, "", "body " + i));
                p.server.channel.writeAndFlush(io.zmtp.wire.ZmtpMessage.ofStrings("reply " + i));
                p.server.channel.writeAndFlush(new io.zmtp.wire.ZmtpCommand("PING",
                        io.netty.buffer.Unpooled.wrappedBuffer(new byte[] {0, 10, 'x'})));
            }
            p.pump();
            return new byte[][] {p.clientToServer.toByteArray(), p.serverToClient.toByteArray()};
        }
    }

    @Test
    void frameDecoder() {
        byte[] traffic = PeerBytes.create().greeting31().ready("Socket-Type", "ROUTER")
                .frame(true, "id").frame(true, new byte[0]).frame(false, new byte[300])
                .command("PING", new byte[] {0, 5, 'c'}).command("SUBSCRIBE", new byte[] {'t'})
                .command("PONG", new byte[0]).command("X", new byte[2]).frame(false, "last").toArray();
        fuzz("decoder", nullDealer(), traffic, new Random(SEED));
    }

    @Test
    void nullHandshake() {
        byte[][] t = transcript(nullDealer(), nullRouter());
        fuzz("NULL server side", nullRouter(), t[0], new Random(SEED + 1));
        fuzz("NULL client side", nullDealer(), t[1], new Random(SEED + 2));
    }

    @Test
    void plainHandshake() {
        byte[][] t = transcript(plainClient(), plainServer());
        fuzz("PLAIN server", plainServer(), t[0], new Random(SEED + 3));
        fuzz("PLAIN client", plainClient(), t[1], new Random(SEED + 4));
    }

    @Test
    void curveHandshake() {
        byte[][] t = transcript(curveClient(), curveServer());
        // The transcripts replay exactly (seeded randomness), so unmutated they complete:
        try (CodecHarness h = new CodecHarness(curveServer().get())) {
            h.feed(t[0]);
            assertNotNull(h.handshake(), "the recorded client bytes replay against a fresh server");
        }
        fuzz("CURVE server", curveServer(), t[0], new Random(SEED + 5));
        fuzz("CURVE client", curveClient(), t[1], new Random(SEED + 6));
    }

    static void fuzz(String target, Supplier<ZmtpOptions> victim, byte[] valid, Random random) {
        int closed = 0;
        for (int i = 0; i < ITERATIONS; i++) {
            byte[] input = mutate(valid, random);
            ZmtpOptions options = victim.get();
            CodecHarness h = new CodecHarness(options);
            String what = target + " case " + i + " (seed " + SEED + ")";
            try {
                feedInPieces(h, input, random);
                h.channel.checkException();
                if (h.channel.isOpen()) {
                    assertEquals(null, h.failure(), what + ": an open connection reported no failure");
                } else {
                    closed++;
                    ConnectionFailed f = h.failure();
                    assertNotNull(f, what + ": closed without a reason");
                    assertFalse(f.reason() == null || f.reason().isEmpty(), what + ": an empty reason");
                    assertFalse(f.reason().contains("\n"), what + ": a reason with a line break");
                }
            } catch (Throwable t) {
                throw new AssertionError(what + " failed on input " + hex(input) + ": " + t, t);
            } finally {
                h.close();
            }
            assertEquals(0, options.inboundBudget().reserved(), what + ": budget returned when the connection is gone");
        }
        // A fuzzer that never breaks anything tests nothing; one that breaks everything only the first byte.
        if (closed == 0 || closed == ITERATIONS) {
            throw new AssertionError(target + ": " + closed + " of " + ITERATIONS + " cases closed; mutations are not varied");
        }
    }

    static void feedInPieces(CodecHarness h, byte[] input, Random random) {
        int from = 0;
        while (from < input.length && h.channel.isOpen()) {
            int n = random.nextInt(4) == 0 ? input.length - from : 1 + random.nextInt(Math.min(200, input.length - from));
            h.feed(Arrays.copyOfRange(input, from, from + n));
            from += n;
            h.written();
        }
    }

    static byte[] mutate(byte[] valid, Random r) {
        byte[] b = valid.clone();
        int mutations = 1 + r.nextInt(3);
        for (int m = 0; m < mutations; m++) {
            if (b.length == 0) {
                b = new byte[] {(byte) r.nextInt()};
            }
            int at = r.nextInt(b.length);
            switch (r.nextInt(8)) {
                case 0: // flip bits
                    b[at] ^= (byte) (1 << r.nextInt(8));
                    break;
                case 1: // random byte
                    b[at] = (byte) r.nextInt();
                    break;
                case 2: // truncate
                    b = Arrays.copyOf(b, at);
                    break;
                case 3: { // insert random bytes
                    byte[] ins = new byte[1 + r.nextInt(16)];
                    r.nextBytes(ins);
                    b = splice(b, at, at, ins);
                    break;
                }
                case 4: { // remove a range
                    int end = Math.min(b.length, at + 1 + r.nextInt(16));
                    b = splice(b, at, end, new byte[0]);
                    break;
                }
                case 5: { // duplicate a range (repeated commands, frames)
                    int end = Math.min(b.length, at + 1 + r.nextInt(64));
                    b = splice(b, at, at, Arrays.copyOfRange(b, at, end));
                    break;
                }
                case 6: { // a random frame or command appended
                    byte[] body = new byte[r.nextInt(300)];
                    r.nextBytes(body);
                    PeerBytes p = PeerBytes.create().raw(b);
                    if (r.nextBoolean()) {
                        p.frame(r.nextBoolean(), body);
                    } else {
                        p.command(r.nextBoolean() ? "PING" : "READY", Arrays.copyOf(body, Math.min(body.length, 200)));
                    }
                    b = p.toArray();
                    break;
                }
                default: // a large or odd length where a size byte may be
                    b[at] = (byte) (r.nextBoolean() ? 0xFF : 0x02);
            }
        }
        return b;
    }

    static byte[] splice(byte[] b, int from, int to, byte[] insert) {
        byte[] out = new byte[b.length - (to - from) + insert.length];
        System.arraycopy(b, 0, out, 0, from);
        System.arraycopy(insert, 0, out, from, insert.length);
        System.arraycopy(b, to, out, from + insert.length, b.length - to);
        return out;
    }

    static String hex(byte[] b) {
        return io.netty.buffer.ByteBufUtil.hexDump(b, 0, Math.min(b.length, 512)) + (b.length > 512 ? "..." : "");
    }
}
