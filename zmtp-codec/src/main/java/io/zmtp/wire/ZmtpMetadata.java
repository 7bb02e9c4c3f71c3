package io.zmtp.wire;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The properties a peer announces in READY (or PLAIN/CURVE INITIATE): Socket-Type, Identity,
 * Resource, X- application properties, and User-Id as set by an authenticator.
 *
 * <p>Names are case-insensitive (as 23/ZMTP says); the case they were given in is kept for
 * display and for the wire. Instances are immutable.
 */
public final class ZmtpMetadata {
    /** 128: the most properties a peer's READY or INITIATE may carry, unless its options say otherwise. */
    public static final int DEFAULT_MAX_PROPERTIES = 128;

    public static final String SOCKET_TYPE = "Socket-Type";
    public static final String IDENTITY = "Identity";
    public static final String RESOURCE = "Resource";
    /** Set locally by an authenticator; never taken from the wire. */
    public static final String USER_ID = "User-Id";
    /** Set locally to the peer's address; never taken from the wire. */
    public static final String PEER_ADDRESS = "Peer-Address";

    public static final ZmtpMetadata EMPTY = new ZmtpMetadata(new String[0], new byte[0][]);

    private final String[] names;
    private final byte[][] values;

    private ZmtpMetadata(String[] names, byte[][] values) {
        this.names = names;
        this.values = values;
    }

    /** The value of property {@code name} (case-insensitive), or null. Do not change the array. */
    public byte[] get(String name) {
        for (int i = 0; i < names.length; i++) {
            if (names[i].equalsIgnoreCase(name)) {
                return values[i];
            }
        }
        return null;
    }

    /** The value as a UTF-8 string, or null. */
    public String getString(String name) {
        byte[] v = get(name);
        return v == null ? null : new String(v, StandardCharsets.UTF_8);
    }

    public boolean contains(String name) {
        return get(name) != null;
    }

    /** The peer's announced socket type, or null when absent or unknown. */
    public SocketType socketType() {
        return SocketType.fromWireName(get(SOCKET_TYPE));
    }

    /** The peer's announced identity, empty when absent. */
    public byte[] identity() {
        byte[] v = get(IDENTITY);
        return v == null ? new byte[0] : v;
    }

    /** The user id an authenticator gave this peer, or null. */
    public String userId() {
        return getString(USER_ID);
    }

    /** Property names in the order they were given. */
    public List<String> names() {
        return Collections.unmodifiableList(Arrays.asList(names));
    }

    public int size() {
        return names.length;
    }

    public boolean isEmpty() {
        return names.length == 0;
    }

    /** A copy with {@code name} set to {@code value} (replacing any property of that name). */
    public ZmtpMetadata with(String name, byte[] value) {
        return toBuilder().put(name, value).build();
    }

    public ZmtpMetadata with(String name, String value) {
        return with(name, value.getBytes(StandardCharsets.UTF_8));
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        for (int i = 0; i < names.length; i++) {
            b.putChecked(names[i], values[i], false); // already checked, and values are never changed
        }
        return b;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The number of bytes {@link #encode} writes. */
    public int encodedSize() {
        int n = 0;
        for (int i = 0; i < names.length; i++) {
            n += 1 + names[i].length() + 4 + values[i].length;
        }
        return n;
    }

    /** Writes the properties in ZMTP's encoding: name-len, name, 4-byte value-len, value. */
    public void encode(ByteBuf out) {
        for (int i = 0; i < names.length; i++) {
            out.writeByte(names[i].length());
            out.writeCharSequence(names[i], StandardCharsets.US_ASCII);
            out.writeInt(values[i].length);
            out.writeBytes(values[i]);
        }
    }

    /**
     * Reads properties from the readable bytes of {@code in} (all of them), checking every length
     * against what is there, with at most {@link #DEFAULT_MAX_PROPERTIES} properties.
     *
     * @throws ZmtpProtocolException on a malformed or truncated property, or too many
     */
    public static ZmtpMetadata decode(ByteBuf in) throws ZmtpProtocolException {
        return decode(in, DEFAULT_MAX_PROPERTIES);
    }

    /**
     * Reads properties from the readable bytes of {@code in}, at most {@code maxProperties} of
     * them, in time linear in their number and size (a repeated name, in any case, replaces the
     * earlier value).
     *
     * @throws ZmtpProtocolException on a malformed or truncated property, or more than
     *         {@code maxProperties}
     */
    public static ZmtpMetadata decode(ByteBuf in, int maxProperties) throws ZmtpProtocolException {
        Builder b = new Builder();
        int count = 0;
        while (in.isReadable()) {
            if (++count > maxProperties) {
                throw new ZmtpProtocolException("metadata with more than " + maxProperties + " properties");
            }
            int nameLen = in.readUnsignedByte();
            if (nameLen == 0) {
                throw new ZmtpProtocolException("metadata property with an empty name");
            }
            if (in.readableBytes() < nameLen + 4) {
                throw new ZmtpProtocolException("metadata property truncated");
            }
            for (int i = 0; i < nameLen; i++) {
                if (!isNameChar(in.getByte(in.readerIndex() + i))) {
                    throw new ZmtpProtocolException("metadata property name has an invalid character");
                }
            }
            String name = in.readCharSequence(nameLen, StandardCharsets.US_ASCII).toString();
            long valueLen = in.readUnsignedInt();
            if (valueLen > in.readableBytes()) {
                throw new ZmtpProtocolException("metadata property '" + FrameText.escape(name) + "' value truncated");
            }
            byte[] value = new byte[(int) valueLen];
            in.readBytes(value);
            if (name.equalsIgnoreCase(USER_ID) || name.equalsIgnoreCase(PEER_ADDRESS)) {
                continue; // local properties cannot be set by a peer
            }
            b.putChecked(name, value, false);
        }
        return b.build();
    }

    static boolean isNameChar(byte c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '-' || c == '_' || c == '.' || c == '+';
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < names.length; i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append(names[i]).append('=');
            sb.append(FrameText.describe(io.netty.buffer.Unpooled.wrappedBuffer(values[i])));
        }
        return sb.append('}').toString();
    }

    /**
     * Builds metadata; a later put of the same name (any case) replaces the earlier value, in the
     * earlier one's place. Each put costs the same however many properties there are.
     */
    public static final class Builder {
        private final List<String> names = new ArrayList<>();
        private final List<byte[]> values = new ArrayList<>();
        /** Lower-case name to its index in {@code names}. */
        private final Map<String, Integer> index = new HashMap<>();

        public Builder put(String name, byte[] value) {
            if (name.isEmpty() || name.length() > 255) {
                throw new IllegalArgumentException("property name must be 1-255 characters: " + FrameText.escape(name));
            }
            for (int i = 0; i < name.length(); i++) {
                char c = name.charAt(i);
                if (c > 0x7f || !isNameChar((byte) c)) {
                    throw new IllegalArgumentException("invalid character in property name: " + FrameText.escape(name));
                }
            }
            return putChecked(name, value, true);
        }

        Builder putChecked(String name, byte[] value, boolean copy) {
            byte[] v = copy ? value.clone() : value;
            Integer at = index.putIfAbsent(name.toLowerCase(Locale.ROOT), names.size());
            if (at == null) {
                names.add(name);
                values.add(v);
            } else {
                names.set(at, name);
                values.set(at, v);
            }
            return this;
        }

        public Builder put(String name, String value) {
            return put(name, value.getBytes(StandardCharsets.UTF_8));
        }

        public Builder putAll(ZmtpMetadata other) {
            for (int i = 0; i < other.names.length; i++) {
                putChecked(other.names[i], other.values[i], false);
            }
            return this;
        }

        public ZmtpMetadata build() {
            return names.isEmpty() ? EMPTY
                    : new ZmtpMetadata(names.toArray(new String[0]), values.toArray(new byte[0][]));
        }
    }
}
