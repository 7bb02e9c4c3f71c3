package io.zmtp.patterns.majordomo;

import io.netty.buffer.ByteBuf;
import io.zmtp.patterns.majordomo.MdpProtocol.MdpFormatException;
import io.zmtp.patterns.majordomo.MdpVersion.ClientCommand;
import io.zmtp.patterns.majordomo.MdpVersion.WorkerCommand;
import io.zmtp.wire.ZmtpMessage;

import java.nio.charset.StandardCharsets;

/**
 * A Majordomo message parsed once into its command: one record per command of 7/MDP (0.1) and
 * 18/MDP (0.2). A record holds the frames of the message it was parsed from, without a copy: the
 * routing id the broker's ROUTER put in front ({@link #peer()}, null where there is none), the
 * service or client address frame, and the body frames as a {@link ZmtpMessage}. The header and
 * command frames are released by the parser. A record owns what it holds: whoever gets it either
 * hands its parts on or calls {@link #release()} once.
 *
 * <p>Malformed messages are rejected here and nowhere else: every reader checks the whole layout
 * before it takes the message apart, and throws {@link MdpFormatException} (with the reason) on a
 * message that is not a command of its version; the message is then untouched and still the
 * caller's to release.
 *
 * <pre>
 * read by                 message                                      record
 * broker  {@link #fromRouter} id | "" | MDPC01 | service | body+           ClientRequest (0.1)
 *                         id | MDPC02 | 01 | service | body+           ClientRequest (0.2)
 *                         id | [""] | MDPW0x | READY | service         WorkerReady
 *                         id | [""] | MDPW0x | REPLY/PARTIAL/FINAL | client | "" | body+
 *                                                                      WorkerReply / WorkerPartial / WorkerFinal
 *                         id | [""] | MDPW0x | HEARTBEAT / DISCONNECT WorkerHeartbeat / WorkerDisconnect
 *                         id | [""] | MDPW0x | REQUEST | client | "" | body+  WorkerRequest (a worker may not send it)
 * worker  {@link #atWorker}   [""] | MDPW0x | REQUEST | client | "" | body+    WorkerRequest, and the other worker commands
 * client  {@link #atClient}   [""] | MDPC01 | service | body+              ClientReply (0.1)
 *                         MDPC02 | 02/03 | service | body+             ClientPartial / ClientFinal
 * </pre>
 */
public sealed interface MdpCommand {

    /** The protocol version the message was written in. */
    MdpVersion version();

    /** The routing id frame the broker's ROUTER put in front, or null (read by a worker or client). */
    ByteBuf peer();

    /** Releases every frame this command holds. */
    void release();

    // ------------------------------------------------------------------ client commands

    /** A client's REQUEST: the service name frame and the body frames (at least one). */
    record ClientRequest(MdpVersion version, ByteBuf peer, ByteBuf service, ZmtpMessage body) implements MdpCommand {
        public String serviceName() {
            return service.toString(StandardCharsets.UTF_8);
        }

        @Override
        public void release() {
            releaseAll(peer, service, body);
        }
    }

    /** A broker's reply to an MDP/0.1 client (one per request). */
    record ClientReply(MdpVersion version, ByteBuf peer, ByteBuf service, ZmtpMessage body) implements MdpCommand {
        @Override
        public void release() {
            releaseAll(peer, service, body);
        }
    }

    /** A broker's PARTIAL reply to an MDP/0.2 client. */
    record ClientPartial(MdpVersion version, ByteBuf peer, ByteBuf service, ZmtpMessage body) implements MdpCommand {
        @Override
        public void release() {
            releaseAll(peer, service, body);
        }
    }

    /** A broker's FINAL reply to an MDP/0.2 client. */
    record ClientFinal(MdpVersion version, ByteBuf peer, ByteBuf service, ZmtpMessage body) implements MdpCommand {
        @Override
        public void release() {
            releaseAll(peer, service, body);
        }
    }

    // ------------------------------------------------------------------ worker commands

    /** A worker's READY for a service. */
    record WorkerReady(MdpVersion version, ByteBuf peer, ByteBuf service) implements MdpCommand {
        public String serviceName() {
            return service.toString(StandardCharsets.UTF_8);
        }

        @Override
        public void release() {
            releaseAll(peer, service, null);
        }
    }

    /** A REQUEST to a worker: the client's address and the body. */
    record WorkerRequest(MdpVersion version, ByteBuf peer, ByteBuf client, ZmtpMessage body) implements MdpCommand {
        @Override
        public void release() {
            releaseAll(peer, client, body);
        }
    }

    /** A worker's one REPLY (MDP/0.1). */
    record WorkerReply(MdpVersion version, ByteBuf peer, ByteBuf client, ZmtpMessage body) implements MdpCommand {
        @Override
        public void release() {
            releaseAll(peer, client, body);
        }
    }

    /** A worker's PARTIAL reply (MDP/0.2), more to come. */
    record WorkerPartial(MdpVersion version, ByteBuf peer, ByteBuf client, ZmtpMessage body) implements MdpCommand {
        @Override
        public void release() {
            releaseAll(peer, client, body);
        }
    }

    /** A worker's FINAL reply (MDP/0.2). */
    record WorkerFinal(MdpVersion version, ByteBuf peer, ByteBuf client, ZmtpMessage body) implements MdpCommand {
        @Override
        public void release() {
            releaseAll(peer, client, body);
        }
    }

    /** HEARTBEAT, either way. */
    record WorkerHeartbeat(MdpVersion version, ByteBuf peer) implements MdpCommand {
        @Override
        public void release() {
            releaseAll(peer, null, null);
        }
    }

    /** DISCONNECT, either way. */
    record WorkerDisconnect(MdpVersion version, ByteBuf peer) implements MdpCommand {
        @Override
        public void release() {
            releaseAll(peer, null, null);
        }
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
        if (MdpProtocol.frameEquals(header, v.clientHeaderBytes())) {
            return clientRequest(msg, v, h + 1);
        }
        if (MdpProtocol.frameEquals(header, v.workerHeaderBytes())) {
            return worker(msg, v, h + 1, true);
        }
        MdpVersion other = v == MdpVersion.V0_1 ? MdpVersion.V0_2 : MdpVersion.V0_1;
        if (MdpProtocol.frameEquals(header, other.clientHeaderBytes())
                || MdpProtocol.frameEquals(header, other.workerHeaderBytes())) {
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
        if (msg.size() < i + 1 || !MdpProtocol.frameEquals(msg.frame(i), v.workerHeaderBytes())) {
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
        if (msg.size() < i + 1 || !MdpProtocol.frameEquals(msg.frame(i), v.clientHeaderBytes())) {
            throw new MdpFormatException("not an " + v.clientHeader() + " message");
        }
        i++;
        ClientCommand c = null;
        if (v == MdpVersion.V0_2) {
            if (msg.size() < i + 1) {
                throw new MdpFormatException("no command frame");
            }
            c = ClientCommand.of(MdpProtocol.code(msg.frame(i)));
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
            return new ClientReply(v, null, service, msg);
        }
        return c == ClientCommand.PARTIAL ? new ClientPartial(v, null, service, msg)
                : new ClientFinal(v, null, service, msg);
    }

    private static MdpCommand clientRequest(ZmtpMessage msg, MdpVersion v, int i) {
        if (v == MdpVersion.V0_2) {
            if (msg.size() <= i) {
                throw new MdpFormatException("no client command frame");
            }
            if (MdpProtocol.code(msg.frame(i)) != ClientCommand.REQUEST.code()) {
                throw new MdpFormatException("client command " + MessageDump.frameText(msg.frame(i))
                        + " is not REQUEST (01)");
            }
            i++;
        }
        if (msg.size() < i + 2) {
            throw new MdpFormatException("a request needs a service frame and at least one body frame");
        }
        ByteBuf peer = msg.removeFirst();
        drop(msg, i - 1);
        ByteBuf service = msg.removeFirst();
        return new ClientRequest(v, peer, service, msg);
    }

    /** A worker command; {@code i} indexes the command frame; {@code routed}: frame 0 is a routing id. */
    private static MdpCommand worker(ZmtpMessage msg, MdpVersion v, int i, boolean routed) {
        if (msg.size() <= i) {
            throw new MdpFormatException("no worker command frame");
        }
        WorkerCommand cmd = v.workerCommand(MdpProtocol.code(msg.frame(i)));
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
        ByteBuf peer = null;
        if (routed) {
            peer = msg.removeFirst();
            i--;
        }
        drop(msg, i + 1);
        switch (cmd) {
            case READY: {
                ByteBuf service = msg.removeFirst();
                msg.release();
                return new WorkerReady(v, peer, service);
            }
            case HEARTBEAT:
                msg.release();
                return new WorkerHeartbeat(v, peer);
            case DISCONNECT:
                msg.release();
                return new WorkerDisconnect(v, peer);
            default:
                break;
        }
        ByteBuf client = msg.removeFirst();
        msg.dropFirst();
        switch (cmd) {
            case REQUEST:
                return new WorkerRequest(v, peer, client, msg);
            case REPLY:
                return new WorkerReply(v, peer, client, msg);
            case PARTIAL:
                return new WorkerPartial(v, peer, client, msg);
            default:
                return new WorkerFinal(v, peer, client, msg);
        }
    }

    private static void drop(ZmtpMessage msg, int n) {
        for (int k = 0; k < n; k++) {
            msg.dropFirst();
        }
    }

    private static void releaseAll(ByteBuf a, ByteBuf b, ZmtpMessage body) {
        if (a != null) {
            a.release();
        }
        if (b != null) {
            b.release();
        }
        if (body != null) {
            body.release();
        }
    }
}
