package io.zmtp.socket;

import io.netty.channel.EventLoop;
import io.zmtp.wire.SocketType;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.EnumMap;

/**
 * Makes the socket class of each ZeroMQ socket type: the class {@link SocketType#socketClass()}
 * names, in this package, through its constructor {@code (ZmtpContext, SocketOptions,
 * EventLoop)}. Every constructor is looked up once, when this class loads, so a type whose class
 * is missing fails at once, naming it. Adding a socket type therefore takes its enum constant
 * and its class, nothing here.
 */
final class SocketTypes {
    private static final MethodType CONSTRUCTOR =
            MethodType.methodType(void.class, ZmtpContext.class, SocketOptions.class, EventLoop.class);
    private static final EnumMap<SocketType, MethodHandle> CONSTRUCTORS = new EnumMap<>(SocketType.class);

    static {
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        for (SocketType t : SocketType.values()) {
            String name = SocketTypes.class.getPackageName() + "." + t.socketClass();
            try {
                Class<?> c = Class.forName(name, false, SocketTypes.class.getClassLoader());
                if (!ZmtpSocket.class.isAssignableFrom(c)) {
                    throw new IllegalStateException(name + " is not a ZmtpSocket");
                }
                CONSTRUCTORS.put(t, lookup.findConstructor(c, CONSTRUCTOR)
                        .asType(CONSTRUCTOR.changeReturnType(ZmtpSocket.class)));
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("socket type " + t + ": no class " + name
                        + " with a constructor (ZmtpContext, SocketOptions, EventLoop)", e);
            }
        }
    }

    private SocketTypes() {
    }

    static ZmtpSocket create(ZmtpContext c, SocketType type, SocketOptions o, EventLoop loop) {
        MethodHandle constructor = CONSTRUCTORS.get(type);
        if (constructor == null) {
            throw new IllegalArgumentException("unsupported socket type " + type);
        }
        ZmtpSocket s;
        try {
            s = (ZmtpSocket) constructor.invokeExact(c, o, loop);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("cannot make a " + type + " socket", t);
        }
        if (s.type() != type) {
            throw new IllegalStateException(t(type) + " made a socket of type " + s.type());
        }
        return s;
    }

    private static String t(SocketType type) {
        return type + " (" + type.socketClass() + ")";
    }
}
