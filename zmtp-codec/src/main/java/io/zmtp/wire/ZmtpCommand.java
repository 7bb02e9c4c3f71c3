package io.zmtp.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;

/**
 * A ZMTP command: a name (1-255 ASCII letters) and the data after it. Handshake commands reach
 * mechanisms in this form; an application may also write one to send a command of its own.
 */
public final class ZmtpCommand extends DefaultByteBufHolder {
    private final String name;

    public ZmtpCommand(String name, ByteBuf data) {
        super(data);
        if (name.isEmpty() || name.length() > 255) {
            throw new IllegalArgumentException("command name must be 1-255 characters");
        }
        this.name = name;
    }

    public String name() {
        return name;
    }

    /** The bytes after the name (owned by this object). */
    public ByteBuf data() {
        return content();
    }

    public boolean is(String commandName) {
        return name.equals(commandName);
    }

    @Override
    public ZmtpCommand replace(ByteBuf content) {
        return new ZmtpCommand(name, content);
    }

    @Override
    public String toString() {
        return name + "(" + content().readableBytes() + " bytes)";
    }
}
