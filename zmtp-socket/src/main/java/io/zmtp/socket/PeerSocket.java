package io.zmtp.socket;

import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.zmtp.wire.SocketType;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;

/**
 * PEER (RFC 51): routes as a SERVER does, by the routing id each received message carries, among
 * peers that are PEERs too; {@link #connectPeer} connects and tells the id the peer reached
 * through that endpoint has. That id is kept for the endpoint: each connection the endpoint makes
 * again after a disconnect gets it, as libzmq's connect pipe keeps its id across reconnects.
 * Peers accepted on a bound endpoint, or reached by a plain {@link #connect(String)}, get a new
 * id per connection, as a SERVER's peers do.
 *
 * <p>While a kept id's connection is down (before its first handshake, or between a disconnect
 * and the reconnect's handshake) a send to it fails with {@link UnroutableMessageException},
 * as a send to any id with no connection does. libzmq instead queues on the connect pipe up to
 * the high-water mark; here the application learns at once that the peer is not there, and
 * retries or waits for {@link #hasPeer(int)} (or the monitor's HANDSHAKE_SUCCEEDED).
 */
public final class PeerSocket extends ServerSocket {
    /** Each endpoint connected with connectPeer, and the id kept for it. */
    private final Map<String, Integer> keptIds = new HashMap<>();
    /** connectPeer calls whose endpoint has not yet completed a handshake, by kept id. */
    private final IntObjectHashMap<Promise<Integer>> waiting = new IntObjectHashMap<>();

    PeerSocket(Setup setup) {
        super(setup, SocketType.PEER);
    }

    /**
     * Connects to {@code endpoint} (any transport, as {@link #connect(String)}) and gives its peer
     * a routing id kept for this endpoint across reconnects. The future completes with that id
     * once the first connection through the endpoint has completed its handshake (from then on a
     * send to it is routed), and fails if the socket closes, or the endpoint is disconnected,
     * first, or the endpoint is refused. A second connectPeer of the same endpoint replaces the
     * first: it stops, and a new id is kept. {@link #disconnect(String)} gives the id up.
     */
    public Future<Integer> connectPeer(String endpoint) {
        Promise<Integer> p = eventLoop().newPromise();
        inLoop(() -> {
            if (isClosing()) {
                p.tryFailure(new SocketClosedException("socket is closed"));
                return;
            }
            int id = peers().keep();
            Integer old = keptIds.put(endpoint, id);
            if (old != null) {
                peers().forget(old);
                failWaiting(old, new IllegalStateException("connectPeer(" + endpoint + ") was called again"));
            }
            waiting.put(id, p);
            connectEndpoint(endpoint, idBytes(id)).addListener(f -> {
                if (!f.isSuccess()) {
                    if (keptIds.remove(endpoint, id)) {
                        peers().forget(id);
                    }
                    failWaiting(id, f.cause());
                }
            });
        });
        return p;
    }

    @Override
    int idFor(Pipe pipe) {
        byte[] kept = pipe.connectRoutingId;
        if (kept == null || kept.length != 4) {
            return super.idFor(pipe);
        }
        return (kept[0] & 0xff) << 24 | (kept[1] & 0xff) << 16 | (kept[2] & 0xff) << 8 | (kept[3] & 0xff);
    }

    @Override
    void peerAttached(Pipe pipe) {
        Promise<Integer> p = waiting.remove(pipe.serverRoutingId);
        if (p != null) {
            p.trySuccess(pipe.serverRoutingId);
        }
    }

    /** The endpoint's kept id is given up; a connectPeer still waiting for it fails. */
    @Override
    void disconnected(String endpoint) {
        Integer id = keptIds.remove(endpoint);
        if (id != null) {
            peers().forget(id);
            failWaiting(id, new IllegalStateException("disconnected from " + endpoint + " before its peer connected"));
        }
    }

    @Override
    void beforeClose() {
        for (int id : new ArrayList<>(waiting.keySet())) {
            failWaiting(id, new SocketClosedException("socket closed before its peer connected"));
        }
    }

    private void failWaiting(int id, Throwable cause) {
        Promise<Integer> p = waiting.remove(id);
        if (p != null) {
            p.tryFailure(cause);
        }
    }

    private static byte[] idBytes(int id) {
        return new byte[] {(byte) (id >>> 24), (byte) (id >>> 16), (byte) (id >>> 8), (byte) id};
    }
}
