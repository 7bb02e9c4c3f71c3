package io.zmtp.benchmarks.tripping;

import io.zmtp.benchmarks.JeromqPeers;
import org.zeromq.SocketType;
import org.zeromq.ZMQ;

import java.nio.charset.StandardCharsets;

/**
 * JeroMQ's twin of the round-trip test: the same topology with JeroMQ sockets and threads. A
 * broker thread polls both ROUTERs and forwards every message waiting on a ready socket with its
 * routing frame swapped; a worker thread echoes; the client is on the benchmark thread. Every
 * socket's high-water marks are 1,000,000 (our client's), so no asynchronous call is dropped or
 * blocked on the way. With CURVE, both ROUTERs are CURVE servers and the client and worker CURVE
 * clients, as in {@link ZmtpTripping}.
 */
final class JeromqTripping implements TrippingTopology {
    private static final byte[] HELLO = "hello".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CLIENT_ID = {'C'};
    private static final byte[] WORKER_ID = {'W'};
    private static final int HWM = 1_000_000;
    private static final int PROBE_WAIT_MS = 100;
    private static final long READY_LIMIT_NANOS = 10_000_000_000L;

    private final JeromqPeers peers = new JeromqPeers();
    private final ZMQ.Socket client;

    JeromqTripping(String transport) {
        this(transport, false);
    }

    JeromqTripping(String transport, boolean curve) {
        ZMQ.Curve.KeyPair brokerKeys = curve ? ZMQ.Curve.generateKeyPair() : null;
        ZMQ.Curve.KeyPair clientKeys = curve ? ZMQ.Curve.generateKeyPair() : null;
        ZMQ.Socket frontend = peers.socket(SocketType.ROUTER);
        ZMQ.Socket backend = peers.socket(SocketType.ROUTER);
        if (curve) {
            for (ZMQ.Socket s : new ZMQ.Socket[] {frontend, backend}) {
                s.setCurveServer(true);
                s.setCurveSecretKey(ZMQ.Curve.z85Decode(brokerKeys.secretKey));
            }
        }
        frontend.setHWM(HWM);
        backend.setHWM(HWM);
        String fe = JeromqPeers.bind(frontend, JeromqPeers.endpoint(transport, "tripping-frontend"));
        String be = JeromqPeers.bind(backend, JeromqPeers.endpoint(transport, "tripping-backend"));

        ZMQ.Socket worker = peers.socket(SocketType.DEALER);
        worker.setHWM(HWM);
        worker.setIdentity(WORKER_ID);

        client = peers.benchmarkSocket(SocketType.DEALER);
        client.setHWM(HWM);
        client.setIdentity(CLIENT_ID);
        if (curve) {
            for (ZMQ.Socket s : new ZMQ.Socket[] {worker, client}) {
                s.setCurveServerKey(ZMQ.Curve.z85Decode(brokerKeys.publicKey));
                s.setCurvePublicKey(ZMQ.Curve.z85Decode(clientKeys.publicKey));
                s.setCurveSecretKey(ZMQ.Curve.z85Decode(clientKeys.secretKey));
            }
        }
        worker.connect(be);
        client.connect(fe);

        peers.start("jeromq-tripping-broker", () -> {
            try (ZMQ.Poller poller = peers.pollerIn(frontend, backend)) {
                while (peers.running()) {
                    poller.poll(-1);
                    if (poller.pollin(0)) {
                        forwardWaiting(frontend, backend, WORKER_ID);
                    }
                    if (poller.pollin(1)) {
                        forwardWaiting(backend, frontend, CLIENT_ID);
                    }
                }
            }
        }, frontend, backend);
        peers.start("jeromq-tripping-worker", () -> {
            while (true) {
                byte[] frame = worker.recv(0);
                worker.send(frame, worker.hasReceiveMore() ? ZMQ.SNDMORE : 0);
            }
        }, worker);
        awaitReady();
    }

    /** Forwards every message waiting on {@code in}, its routing frame replaced by {@code to}. */
    private static void forwardWaiting(ZMQ.Socket in, ZMQ.Socket out, byte[] to) {
        while (in.recv(ZMQ.DONTWAIT) != null) { // the sender's routing frame, dropped
            out.send(to, ZMQ.SNDMORE);
            boolean more = true;
            while (more) {
                byte[] frame = in.recv(0);
                more = in.hasReceiveMore();
                out.send(frame, more ? ZMQ.SNDMORE : 0);
            }
        }
    }

    /**
     * Probes until a request makes it to the worker and back: until the worker has connected, the
     * broker's ROUTER drops requests for "W". Each probe is numbered; replies come back in order,
     * so once the last probe's reply is in, no older reply can follow it.
     */
    private void awaitReady() {
        client.setReceiveTimeOut(PROBE_WAIT_MS);
        long deadline = System.nanoTime() + READY_LIMIT_NANOS;
        try {
            for (int probe = 0; System.nanoTime() < deadline; probe++) {
                String sent = "probe-" + probe;
                client.send(sent);
                byte[] reply;
                while ((reply = client.recv(0)) != null) {
                    if (sent.equals(new String(reply, StandardCharsets.US_ASCII))) {
                        return;
                    }
                }
            }
            throw new IllegalStateException("JeroMQ round trip not ready within 10 s");
        } finally {
            client.setReceiveTimeOut(-1);
        }
    }

    @Override
    public void synchronous(int calls) {
        for (int i = 0; i < calls; i++) {
            client.send(HELLO, 0);
            client.recv(0);
        }
    }

    @Override
    public void asynchronous(int calls) {
        for (int i = 0; i < calls; i++) {
            client.send(HELLO, 0);
        }
        for (int i = 0; i < calls; i++) {
            client.recv(0);
        }
    }

    @Override
    public void close() {
        peers.close();
    }
}
