package io.zmtp.patterns.majordomo;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.zmtp.patterns.majordomo.MdpVersion.ClientCommand;
import io.zmtp.patterns.majordomo.MdpVersion.WorkerCommand;
import io.zmtp.socket.RoutingId;
import io.zmtp.wire.Frames;
import io.zmtp.wire.ZmtpMessage;

import java.nio.charset.StandardCharsets;

/**
 * The frames of MDP/0.1 (7/MDP) and MDP/0.2 (18/MDP), written and read in this one place: the
 * builders of every command (a client's, a worker's, and the broker's, which frames what it
 * forwards in the version of whoever receives it), and the readers that check a received message
 * against the layout of its version and parse it once into an {@link MdpCommand}. A ROUTER's
 * routing-id frame is not part of the layouts below; the broker's readers and builders take and
 * put it in front.
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
    /**
     * The first body frame of the broker's answer to a request it refused (a queue limit, the
     * service count, the service-name length); the second frame is the reason, in words. MDP
     * defines no error command, so the answer is an ordinary final reply (FINAL in 0.2, REPLY in
     * 0.1) for the service the client asked for, which every client accepts (the guide's clients
     * check the service frame), marked in the body in the style of 8/MMI's reserved
     * {@code mmi.} names ({@link MmiService#MMI_REFUSED}). {@link MajordomoReply#isRefused()}
     * recognises it.
     */
    public static final String REFUSED = MmiService.MMI_REFUSED;

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

    /** Adds the body frames to {@code msg}; an empty body as one empty frame (MDP's body has at least one). */
    static void addBody(ZmtpMessage msg, Frames body) {
        if (body.isEmpty()) {
            msg.addEmpty();
            return;
        }
        for (int i = 0; i < body.size(); i++) {
            msg.add(body.frame(i));
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
    public static ZmtpMessage workerReply(MdpVersion v, WorkerCommand command, byte[] client, Frames body) {
        ZmtpMessage m = workerCommand(v, command);
        m.add(client.length == 0 ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(client));
        m.addEmpty();
        addBody(m, body);
        return m;
    }

    /**
     * A worker's reply command (REPLY in 0.1; PARTIAL or FINAL in 0.2) around {@code addressed},
     * {@code client | "" | body...} (ownership passes; framed in place). An empty body goes as one
     * empty frame.
     */
    static ZmtpMessage workerReply(MdpVersion v, WorkerCommand command, ZmtpMessage addressed) {
        if (addressed.size() == 2) {
            addressed.addEmpty();
        }
        addressed.addFirst(codeFrame(v.code(command)));
        addressed.addFirst(constant(v.workerHeaderBytes()));
        if (v.leadingEmptyFrame()) {
            addressed.addFirst(Unpooled.EMPTY_BUFFER);
        }
        return addressed;
    }

    /** A body as a message of its frames (the arrays wrapped, not copied); an empty body as one empty frame. */
    static ZmtpMessage body(Frames frames) {
        ZmtpMessage m = ZmtpMessage.newMessage();
        addBody(m, frames);
        return m;
    }

    /**
     * A client request. {@code delimiter}: whether to write the 0.1 empty frame ourselves (a DEALER
     * client does; a REQ socket adds it on its own).
     */
    public static ZmtpMessage clientRequest(MdpVersion v, boolean delimiter, String service, Frames body) {
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

    // ------------------------------------------------------------------ the broker's builders

    /**
     * A command without arguments (HEARTBEAT, DISCONNECT) from the broker to a worker:
     * {@code worker-id | [""] | MDPW0x | command}.
     */
    static ZmtpMessage toWorker(RoutingId worker, MdpVersion v, WorkerCommand command) {
        ZmtpMessage m = workerCommand(v, command);
        m.addFirst(worker.frame());
        return m;
    }

    /**
     * Frames {@code body} (in place; ownership passes) as a REQUEST from {@code client} to a worker
     * of version {@code v}: {@code worker-id | [""] | MDPW0x | REQUEST | client-id | "" | body}.
     */
    static ZmtpMessage requestToWorker(RoutingId worker, MdpVersion v, RoutingId client, ZmtpMessage body) {
        body.addFirst(Unpooled.EMPTY_BUFFER);
        body.addFirst(client.toFrame());
        body.addFirst(codeFrame(v.code(WorkerCommand.REQUEST)));
        body.addFirst(constant(v.workerHeaderBytes()));
        if (v.leadingEmptyFrame()) {
            body.addFirst(Unpooled.EMPTY_BUFFER);
        }
        body.addFirst(worker.frame()); // routed by the id object itself, no buffer made
        return body;
    }

    /**
     * Frames {@code body} (in place) as a reply to {@code client} in the client's version {@code v}:
     * {@code client-id | "" | MDPC01 | service | body} or {@code client-id | MDPC02 | 02/03 |
     * service | body} ({@code fin}: FINAL, else PARTIAL). Ownership of {@code body} and
     * {@code service} passes to the message; the id goes in front as itself, no buffer made.
     */
    static ZmtpMessage replyToClient(RoutingId client, ZmtpMessage body, MdpVersion v, boolean fin, ByteBuf service) {
        body.addFirst(service);
        if (v == MdpVersion.V0_1) {
            body.addFirst(constant(v.clientHeaderBytes()));
            body.addFirst(Unpooled.EMPTY_BUFFER);
        } else {
            body.addFirst(codeFrame((fin ? ClientCommand.FINAL : ClientCommand.PARTIAL).code()));
            body.addFirst(constant(v.clientHeaderBytes()));
        }
        body.addFirst(client.frame());
        return body;
    }

    /**
     * The broker's refusal of a request: a final reply for the service asked for, body
     * {@code mmi.refused | reason}, in the client's version (ownership of {@code service} passes).
     */
    static ZmtpMessage refusal(RoutingId client, MdpVersion v, ByteBuf service, String reason) {
        return replyToClient(client, ZmtpMessage.newMessage().add(REFUSED).add(reason), v, true, service);
    }

    // ------------------------------------------------------------------ readers

    /**
     * Reads a message a broker's ROUTER delivered ({@code routing-id | ...}): a client REQUEST or
     * any worker command, of either version (an empty frame after the id means 0.1). On success
     * the message's frames belong to the command; on {@link MdpFormatException} the message is
     * untouched.
     */
    static MdpCommand fromRouter(ZmtpMessage msg) {
        if (msg.size() < 3) {
            throw new MdpFormatException("only " + (msg.size() - 1) + " frame(s) after the routing id");
        }
        MdpVersion v;
        int h;
        if (!msg.frame(1).isReadable()) {
            v = MdpVersion.V0_1;
            h = 2;
        } else {
            v = MdpVersion.V0_2;
            h = 1;
        }
        ByteBuf header = msg.frame(h);
        if (frameEquals(header, v.clientHeaderBytes())) {
            return readClientRequest(msg, v, h + 1);
        }
        if (frameEquals(header, v.workerHeaderBytes())) {
            return worker(msg, v, h + 1, true);
        }
        MdpVersion other = v == MdpVersion.V0_1 ? MdpVersion.V0_2 : MdpVersion.V0_1;
        if (frameEquals(header, other.clientHeaderBytes())
                || frameEquals(header, other.workerHeaderBytes())) {
            throw new MdpFormatException(v == MdpVersion.V0_1
                    ? "an MDP/0.2 header after an empty frame (0.2 has no empty frame)"
                    : "an MDP/0.1 header without the empty frame before it");
        }
        throw new MdpFormatException("unknown protocol header " + MessageDump.frameText(header));
    }

    /** Reads a command a worker of version {@code v} received from its broker (no routing id). */
    static MdpCommand atWorker(ZmtpMessage msg, MdpVersion v) {
        int i = 0;
        if (v.leadingEmptyFrame()) {
            if (msg.size() < 1 || msg.frame(0).isReadable()) {
                throw new MdpFormatException("no empty frame before the header");
            }
            i = 1;
        }
        if (msg.size() < i + 1 || !frameEquals(msg.frame(i), v.workerHeaderBytes())) {
            throw new MdpFormatException("not an " + v.workerHeader() + " command");
        }
        return worker(msg, v, i + 1, false);
    }

    /**
     * Reads a reply a client of version {@code v} received (no routing id); {@code delimiter}:
     * whether the 0.1 empty frame is still there (DEALER) or was stripped (REQ).
     */
    static MdpCommand atClient(ZmtpMessage msg, MdpVersion v, boolean delimiter) {
        int i = 0;
        if (v == MdpVersion.V0_1 && delimiter) {
            if (msg.size() < 1 || msg.frame(0).isReadable()) {
                throw new MdpFormatException("no empty delimiter frame before the header");
            }
            i = 1;
        }
        if (msg.size() < i + 1 || !frameEquals(msg.frame(i), v.clientHeaderBytes())) {
            throw new MdpFormatException("not an " + v.clientHeader() + " message");
        }
        i++;
        ClientCommand c = null;
        if (v == MdpVersion.V0_2) {
            if (msg.size() < i + 1) {
                throw new MdpFormatException("no command frame");
            }
            c = ClientCommand.of(code(msg.frame(i)));
            if (c != ClientCommand.PARTIAL && c != ClientCommand.FINAL) {
                throw new MdpFormatException("command " + MessageDump.frameText(msg.frame(i))
                        + " is not PARTIAL (02) or FINAL (03)");
            }
            i++;
        }
        if (msg.size() < i + 2) {
            throw new MdpFormatException("a reply needs a service frame and at least one body frame");
        }
        drop(msg, i);
        ByteBuf service = msg.removeFirst();
        if (c == null) {
            return new MdpCommand.ClientReply(v, null, service, msg);
        }
        return c == ClientCommand.PARTIAL ? new MdpCommand.ClientPartial(v, null, service, msg)
                : new MdpCommand.ClientFinal(v, null, service, msg);
    }

    private static MdpCommand readClientRequest(ZmtpMessage msg, MdpVersion v, int i) {
        if (v == MdpVersion.V0_2) {
            if (msg.size() <= i) {
                throw new MdpFormatException("no client command frame");
            }
            if (code(msg.frame(i)) != ClientCommand.REQUEST.code()) {
                throw new MdpFormatException("client command " + MessageDump.frameText(msg.frame(i))
                        + " is not REQUEST (01)");
            }
            i++;
        }
        if (msg.size() < i + 2) {
            throw new MdpFormatException("a request needs a service frame and at least one body frame");
        }
        RoutingId peer = RoutingId.removeFirst(msg);
        drop(msg, i - 1);
        ByteBuf service = msg.removeFirst();
        return new MdpCommand.ClientRequest(v, peer, service, msg);
    }

    /** A worker command; {@code i} indexes the command frame; {@code routed}: frame 0 is a routing id. */
    private static MdpCommand worker(ZmtpMessage msg, MdpVersion v, int i, boolean routed) {
        if (msg.size() <= i) {
            throw new MdpFormatException("no worker command frame");
        }
        WorkerCommand cmd = v.workerCommand(code(msg.frame(i)));
        if (cmd == null) {
            throw new MdpFormatException("unknown " + v + " worker command " + MessageDump.frameText(msg.frame(i)));
        }
        int args = msg.size() - i - 1;
        switch (cmd) {
            case READY:
                if (args != 1) {
                    throw new MdpFormatException("READY takes exactly one service frame, not " + args);
                }
                break;
            case HEARTBEAT:
            case DISCONNECT:
                if (args != 0) {
                    throw new MdpFormatException(cmd + " takes no frames, not " + args);
                }
                break;
            default:
                if (args < 3 || msg.frame(i + 2).isReadable()) {
                    throw new MdpFormatException(cmd + " needs a client address, an empty frame and at least one body frame");
                }
                break;
        }
        RoutingId peer = null;
        if (routed) {
            peer = RoutingId.removeFirst(msg);
            i--;
        }
        drop(msg, i + 1);
        switch (cmd) {
            case READY: {
                ByteBuf service = msg.removeFirst();
                msg.release();
                return new MdpCommand.WorkerReady(v, peer, service);
            }
            case HEARTBEAT:
                msg.release();
                return new MdpCommand.WorkerHeartbeat(v, peer);
            case DISCONNECT:
                msg.release();
                return new MdpCommand.WorkerDisconnect(v, peer);
            default:
                break;
        }
        ByteBuf client = msg.removeFirst();
        msg.dropFirst();
        switch (cmd) {
            case REQUEST:
                return new MdpCommand.WorkerRequest(v, peer, client, msg);
            case REPLY:
                return new MdpCommand.WorkerReply(v, peer, client, msg);
            case PARTIAL:
                return new MdpCommand.WorkerPartial(v, peer, client, msg);
            default:
                return new MdpCommand.WorkerFinal(v, peer, client, msg);
        }
    }

    private static void drop(ZmtpMessage msg, int n) {
        for (int k = 0; k < n; k++) {
            msg.dropFirst();
        }
    }


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
            cmd = atClient(mine, v, delimiter);
        } catch (MdpFormatException e) {
            mine.release();
            throw e;
        }
        try {
            if (cmd instanceof MdpCommand.ClientPartial p) {
                return new MajordomoReply(string(p.service()), Frames.copyOf(p.body()), false);
            }
            if (cmd instanceof MdpCommand.ClientFinal f) {
                return new MajordomoReply(string(f.service()), Frames.copyOf(f.body()), true);
            }
            MdpCommand.ClientReply r = (MdpCommand.ClientReply) cmd;
            return new MajordomoReply(string(r.service()), Frames.copyOf(r.body()), true);
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
