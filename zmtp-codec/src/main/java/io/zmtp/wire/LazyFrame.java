package io.zmtp.wire;

import io.netty.buffer.ByteBuf;

/**
 * A frame a {@link ZmtpMessage} holds in front of its others by reference, made into a buffer only
 * if someone reads it as one: a ROUTER's routing id. A message that is routed on by the same id
 * or has its id dropped (a broker, a proxy) then costs no buffer, no pooled object and no
 * reference count for it. Immutable; safe to share between messages.
 */
public interface LazyFrame {
    /** The frame's bytes; never changed, and not to be changed by the caller. */
    byte[] bytes();

    /** A new buffer of the frame's bytes, owned by the caller (any thread). */
    ByteBuf toBuffer();
}
