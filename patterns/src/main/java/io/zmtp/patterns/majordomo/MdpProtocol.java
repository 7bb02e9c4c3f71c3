package io.zmtp.patterns.majordomo;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.zmtp.patterns.majordomo.MdpVersion.ClientCommand;
import io.zmtp.patterns.majordomo.MdpVersion.WorkerCommand;
import io.zmtp.wire.ZmtpMessage;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The frames of MDP/0.1 (7/MDP) and MDP/0.2 (18/MDP): builders for every command and readers
 * that check a received message against the layout of its version. A ROUTER's routing-id frame
 * is not part of these layouts (the broker strips and adds it).
 *
 * <pre>
 * MDP/0.1 client (REQ adds/strips the first empty frame):
 *   REQUEST, REPLY   "" | MDPC01 | service | body...
 * MDP/0.1 worker:
 *   READY            "" | MDPW01 | 01 | service
 *   REQUEST, REPLY   "" | MDPW01 | 02/03 | client | "" | body...
 *   HEARTBEAT        "" | MDPW01 | 04
 *   DISCONNECT       "" | MDPW01 | 05
 * MDP/0.2 client (DEALER):
 *   REQUEST          MDPC02 | 01 | service | body...
 *   PARTIAL, FINAL   MDPC02 | 02/03 | service | body...
 * MDP/0.2 worker:
 *   READY            MDPW02 | 01 | service
 *   REQUEST, PARTIAL, FINAL   MDPW02 | 02/03/04 | client | "" | body...
 *   HEARTBEAT        MDPW02 | 05
 *   DISCONNECT       MDPW02 | 06
 * </pre>
 *
 * A body has at least one frame (the specifications count "4 or more" and "5 or more" frames):
 * an empty body is sent as one empty frame.
 */
public final class MdpProtocol {
    /** The namespace the broker serves itself (8/MMI). */
    public static final String MMI_PREFIX = "mmi.";
    /** Service discovery: the body names a service; the answer is "200" or "404". */
    public static final String MMI_SERVICE = "mmi.service";
    public static final String MMI_FOUND = "200";
    public static final String MMI_NOT_FOUND = "404";
    public static final String MMI_NOT_IMPLEMENTED = "501";
    /**
     * The first body frame of the broker's answer to a request it refused (a queue limit, the
     * service count, the service-name length); the second frame is the reason, in words. MDP
     * defines no error command, so the answer is an ordinary final reply (FINAL in 0.2, REPLY in
     * 0.1) for the service the client asked for, which every client accepts (the guide's clients
     * check the service frame), marked in the body in the style of 8/MMI's reserved
     * {@code mmi.} names. {@link MajordomoReply#isRefused()} recognises it.
     */
    public static final String REFUSED = "mmi.refused";

    private static final byte[][] CODES = new byte[16][];

    static {
        for (int i = 0; i < CODES.length; i++) {
            CODES[i] = new byte[] {(byte) i};
        }
    }

    private MdpProtocol() {
    }

    // ------------------------------------------------------------------ frames

    /** A one-byte command frame. */
    static ByteBuf codeFrame(int code) {
        return Unpooled.wrappedBuffer(CODES[code]);
    }

    /** A frame over shared constant bytes (never written to). */
    static ByteBuf constant(byte[] bytes) {
        return Unpooled.wrappedBuffer(bytes);
    }

    static ByteBuf text(String s) {
        return s.isEmpty() ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(s.getBytes(StandardCharsets.UTF_8));
    }

    /** Whether the frame holds exactly these bytes. */
    static boolean frameEquals(ByteBuf frame, byte[] bytes) {
        int n = frame.readableBytes();
        if (n != bytes.length) {
            return false;
        }
        int r = frame.readerIndex();
        for (int i = 0; i < n; i++) {
            if (frame.getByte(r + i) != bytes[i]) {
                return false;
            }
        }
        return true;
    }

    /** The value of a one-byte frame, or -1 if the frame is not one byte long. */
    static int code(ByteBuf frame) {
        return frame.readableBytes() == 1 ? frame.getUnsignedByte(frame.readerIndex()) : -1;
    }

    static String string(ByteBuf frame) {
        return frame.toString(StandardCharsets.UTF_8);
    }

    static List<byte[]> copyFrames(ZmtpMessage msg, int from) {
        List<byte[]> l = new ArrayList<>(Math.max(0, msg.size() - from));
        for (int i = from; i < msg.size(); i++) {
            l.add(ByteBufUtil.getBytes(msg.frame(i)));
        }
        return l;
    }

    static void addBody(ZmtpMessage msg, List<byte[]> body) {
        if (body.isEmpty()) {
            msg.addEmpty();
            return;
        }
        for (byte[] f : body) {
            msg.add(f);
        }
    }

    // ------------------------------------------------------------------ builders

    /**
     * A worker command without arguments (HEARTBEAT, DISCONNECT) or with a service (READY): what a
     * worker sends, or what a broker sends after the worker's routing id.
     */
    public static ZmtpMessage workerCommand(MdpVersion v, WorkerCommand command) {
        int code = v.code(command);
        if (code < 0) {
            throw new IllegalArgumentException(v + " has no " + command + " command");
        }
        ZmtpMessage m = ZmtpMessage.newMessage();
        if (v.leadingEmptyFrame()) {
            m.addEmpty();
        }
        m.add(constant(v.workerHeaderBytes()));
        m.add(codeFrame(code));
        return m;
    }

    /** READY for a service. */
    public static ZmtpMessage ready(MdpVersion v, String service) {
        return workerCommand(v, WorkerCommand.READY).add(text(service));
    }

    /**
     * A worker's reply command (REPLY in 0.1; PARTIAL or FINAL in 0.2) to a client address, with
     * its body.
     */
    public static ZmtpMessage workerReply(MdpVersion v, WorkerCommand command, byte[] client, List<byte[]> body) {
        ZmtpMessage m = workerCommand(v, command);
        m.add(client.length == 0 ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(client));
        m.addEmpty();
        addBody(m, body);
        return m;
    }

    /**
     * A client request. {@code delimiter}: whether to write the 0.1 empty frame ourselves (a DEALER
     * client does; a REQ socket adds it on its own).
     */
    public static ZmtpMessage clientRequest(MdpVersion v, boolean delimiter, String service, List<byte[]> body) {
        ZmtpMessage m = ZmtpMessage.newMessage();
        if (v == MdpVersion.V0_1) {
            if (delimiter) {
                m.addEmpty();
            }
            m.add(constant(v.clientHeaderBytes()));
        } else {
            m.add(constant(v.clientHeaderBytes()));
            m.add(codeFrame(ClientCommand.REQUEST.code()));
        }
        m.add(text(service));
        addBody(m, body);
        return m;
    }

    // ------------------------------------------------------------------ readers

    /**
     * Reads a reply a client received from the broker, checking it against its version's layout;
     * {@code delimiter}: whether the 0.1 empty frame is still there (DEALER) or was stripped (REQ).
     * The caller still releases the message; it is parsed once into an {@link MdpCommand} (whose
     * frames are taken out of it) and the reply's frames are copied.
     *
     * @throws MdpFormatException with the reason when the message is not a reply of that version
     */
    public static MajordomoReply readClientReply(ZmtpMessage msg, MdpVersion v, boolean delimiter) {
        ZmtpMessage mine = msg.retain();
        MdpCommand cmd;
        try {
            cmd = MdpCommand.atClient(mine, v, delimiter);
        } catch (MdpFormatException e) {
            mine.release();
            throw e;
        }
        try {
            if (cmd instanceof MdpCommand.ClientPartial p) {
                return new MajordomoReply(string(p.service()), copyFrames(p.body(), 0), false);
            }
            if (cmd instanceof MdpCommand.ClientFinal f) {
                return new MajordomoReply(string(f.service()), copyFrames(f.body(), 0), true);
            }
            MdpCommand.ClientReply r = (MdpCommand.ClientReply) cmd;
            return new MajordomoReply(string(r.service()), copyFrames(r.body(), 0), true);
        } finally {
            cmd.release();
        }
    }

    /** Thrown by the readers when a message does not follow its version's layout. */
    public static final class MdpFormatException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public MdpFormatException(String reason) {
            super(reason, null, false, false);
        }
    }
}
