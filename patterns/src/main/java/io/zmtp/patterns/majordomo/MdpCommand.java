package io.zmtp.patterns.majordomo;

import io.netty.buffer.ByteBuf;
import io.zmtp.socket.RoutingId;
import io.zmtp.wire.ZmtpMessage;

import java.nio.charset.StandardCharsets;

/**
 * A Majordomo message parsed once into its command ({@link MdpProtocol}'s readers): one record per
 * command of 7/MDP (0.1) and 18/MDP (0.2). A record holds the frames of the message it was parsed from, without a copy: the
 * service or client address frame and the body frames as a {@link ZmtpMessage}; and the routing id
 * the broker's ROUTER put in front ({@link #peer()}, null where there is none), as the ROUTER's own
 * id object ({@link RoutingId#removeFirst}: no buffer, no copy). The header and command frames are
 * released by the parser. A record owns what it holds: whoever gets it either
 * hands its parts on or calls {@link #release()} once.
 *
 * <p>Malformed messages are rejected here and nowhere else: every reader checks the whole layout
 * before it takes the message apart, and throws {@link MdpProtocol.MdpFormatException} (with the reason) on a
 * message that is not a command of its version; the message is then untouched and still the
 * caller's to release.
 *
 * <pre>
 * read by                 message                                      record
 * broker  {@link MdpProtocol#fromRouter} id | "" | MDPC01 | service | body+           ClientRequest (0.1)
 *                         id | MDPC02 | 01 | service | body+           ClientRequest (0.2)
 *                         id | [""] | MDPW0x | READY | service         WorkerReady
 *                         id | [""] | MDPW0x | REPLY/PARTIAL/FINAL | client | "" | body+
 *                                                                      WorkerReply / WorkerPartial / WorkerFinal
 *                         id | [""] | MDPW0x | HEARTBEAT / DISCONNECT WorkerHeartbeat / WorkerDisconnect
 *                         id | [""] | MDPW0x | REQUEST | client | "" | body+  WorkerRequest (a worker may not send it)
 * worker  {@link MdpProtocol#atWorker}   [""] | MDPW0x | REQUEST | client | "" | body+    WorkerRequest, and the other worker commands
 * client  {@link MdpProtocol#atClient}   [""] | MDPC01 | service | body+              ClientReply (0.1)
 *                         MDPC02 | 02/03 | service | body+             ClientPartial / ClientFinal
 * </pre>
 */
public sealed interface MdpCommand {

    /** The protocol version the message was written in. */
    MdpVersion version();

    /** The routing id the broker's ROUTER put in front, or null (read by a worker or client). */
    RoutingId peer();

    /** Releases every frame this command holds. */
    void release();

    // ------------------------------------------------------------------ client commands

    /** A client's REQUEST: the service name frame and the body frames (at least one). */
    record ClientRequest(MdpVersion version, RoutingId peer, ByteBuf service, ZmtpMessage body) implements MdpCommand {
        public String serviceName() {
            return service.toString(StandardCharsets.UTF_8);
        }

        @Override
        public void release() {
            releaseAll(service, body);
        }
    }

    /** A broker's reply to an MDP/0.1 client (one per request). */
    record ClientReply(MdpVersion version, RoutingId peer, ByteBuf service, ZmtpMessage body) implements MdpCommand {
        @Override
        public void release() {
            releaseAll(service, body);
        }
    }

    /** A broker's PARTIAL reply to an MDP/0.2 client. */
    record ClientPartial(MdpVersion version, RoutingId peer, ByteBuf service, ZmtpMessage body) implements MdpCommand {
        @Override
        public void release() {
            releaseAll(service, body);
        }
    }

    /** A broker's FINAL reply to an MDP/0.2 client. */
    record ClientFinal(MdpVersion version, RoutingId peer, ByteBuf service, ZmtpMessage body) implements MdpCommand {
        @Override
        public void release() {
            releaseAll(service, body);
        }
    }

    // ------------------------------------------------------------------ worker commands

    /** A worker's READY for a service. */
    record WorkerReady(MdpVersion version, RoutingId peer, ByteBuf service) implements MdpCommand {
        public String serviceName() {
            return service.toString(StandardCharsets.UTF_8);
        }

        @Override
        public void release() {
            releaseAll(service, null);
        }
    }

    /** A REQUEST to a worker: the client's address and the body. */
    record WorkerRequest(MdpVersion version, RoutingId peer, ByteBuf client, ZmtpMessage body) implements MdpCommand {
        @Override
        public void release() {
            releaseAll(client, body);
        }
    }

    /** A worker's one REPLY (MDP/0.1). */
    record WorkerReply(MdpVersion version, RoutingId peer, ByteBuf client, ZmtpMessage body) implements MdpCommand {
        @Override
        public void release() {
            releaseAll(client, body);
        }
    }

    /** A worker's PARTIAL reply (MDP/0.2), more to come. */
    record WorkerPartial(MdpVersion version, RoutingId peer, ByteBuf client, ZmtpMessage body) implements MdpCommand {
        @Override
        public void release() {
            releaseAll(client, body);
        }
    }

    /** A worker's FINAL reply (MDP/0.2). */
    record WorkerFinal(MdpVersion version, RoutingId peer, ByteBuf client, ZmtpMessage body) implements MdpCommand {
        @Override
        public void release() {
            releaseAll(client, body);
        }
    }

    /** HEARTBEAT, either way. */
    record WorkerHeartbeat(MdpVersion version, RoutingId peer) implements MdpCommand {
        @Override
        public void release() {
            // only the routing id, which holds no buffer
        }
    }

    /** DISCONNECT, either way. */
    record WorkerDisconnect(MdpVersion version, RoutingId peer) implements MdpCommand {
        @Override
        public void release() {
            // only the routing id, which holds no buffer
        }
    }

    private static void releaseAll(ByteBuf frame, ZmtpMessage body) {
        if (frame != null) {
            frame.release();
        }
        if (body != null) {
            body.release();
        }
    }
}
