package io.zmtp.socket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;

import java.util.Arrays;
import java.util.HashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * ROUTER's table of peers by routing id: the Identity a peer announced, or an id generated for it
 * when it announced none (5 bytes: a zero byte, then a counter starting at a random value, as
 * libzmq does). Lookups by a frame's bytes allocate nothing.
 */
final class RoutingTable {

    /** A routing id; also used as a lookup probe over a frame's bytes. */
    static final class Key {
        private byte[] bytes;
        private ByteBuf buf;
        private int hash;
        /** The id as a pooled frame, shared by duplicates put in front of received messages. */
        private ByteBuf frame;

        private Key(byte[] bytes) {
            this.bytes = bytes;
            this.hash = hashOf(bytes);
        }

        private Key() {
        }

        byte[] bytes() {
            return bytes;
        }

        /** A frame holding the id (a retained duplicate of a pooled buffer: no copy, no garbage). */
        ByteBuf newFrame() {
            if (frame == null) {
                frame = PooledByteBufAllocator.DEFAULT.directBuffer(bytes.length).writeBytes(bytes);
            }
            return frame.retainedDuplicate();
        }

        void releaseFrame() {
            if (frame != null) {
                frame.release();
                frame = null;
            }
        }

        private static int hashOf(byte[] b) {
            return Arrays.hashCode(b);
        }

        /** The id's bytes for a probe: copied once into a scratch array (ids are at most 255 bytes). */
        private byte[] scratch = new byte[32];
        private int scratchLength;

        private int probe(ByteBuf b) {
            int n = b.readableBytes();
            if (n > scratch.length) {
                scratch = new byte[Math.max(n, 2 * scratch.length)];
            }
            b.getBytes(b.readerIndex(), scratch, 0, n);
            scratchLength = n;
            int h = 1;
            for (int i = 0; i < n; i++) {
                h = 31 * h + scratch[i];
            }
            return h;
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Key)) {
                return false;
            }
            Key k = (Key) o;
            if (k.hash != hash) {
                return false;
            }
            if (buf == null && k.buf == null) {
                return Arrays.equals(bytes, k.bytes);
            }
            Key stored = buf == null ? this : k;
            Key probe = buf == null ? k : this;
            return java.util.Arrays.equals(stored.bytes, 0, stored.bytes.length, probe.scratch, 0, probe.scratchLength);
        }
    }

    private final HashMap<Key, Pipe> byId = new HashMap<>();
    private final Key probe = new Key();
    private int nextGenerated = ThreadLocalRandom.current().nextInt();

    /**
     * Gives {@code pipe} its routing id. Returns the pipe that held that id before and was
     * displaced (handover), or null. Returns {@code pipe} itself when the id is taken and
     * handover is off: the new peer then gets no id and is ignored, as in libzmq.
     */
    Pipe add(Pipe pipe, boolean handover) {
        byte[] id = pipe.peerMetadata().identity();
        if (id.length == 0) {
            id = generate();
        }
        Key key = new Key(id);
        Pipe old = byId.get(key);
        if (old != null && !handover) {
            return pipe;
        }
        if (old != null) {
            old.routingKey.releaseFrame();
            old.routingKey = null;
        }
        pipe.routingKey = key;
        byId.put(key, pipe);
        return old;
    }

    /** The peer whose routing id equals {@code id}'s readable bytes, or null. */
    Pipe get(ByteBuf id) {
        probe.buf = id;
        probe.hash = probe.probe(id);
        try {
            return byId.get(probe);
        } finally {
            probe.buf = null;
        }
    }

    /** The peer with this routing id, or null. */
    Pipe get(byte[] id) {
        return byId.get(new Key(id));
    }

    void remove(Pipe pipe) {
        if (pipe.routingKey != null) {
            byId.remove(pipe.routingKey, pipe);
            pipe.routingKey.releaseFrame();
            pipe.routingKey = null;
        }
    }

    int size() {
        return byId.size();
    }

    private byte[] generate() {
        for (;;) {
            int n = nextGenerated++;
            byte[] id = {0, (byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n};
            if (!byId.containsKey(new Key(id))) {
                return id;
            }
        }
    }
}
