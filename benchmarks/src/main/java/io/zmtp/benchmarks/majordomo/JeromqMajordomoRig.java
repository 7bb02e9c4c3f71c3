package io.zmtp.benchmarks.majordomo;

import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import java.util.ArrayList;
import java.util.List;

import static io.zmtp.benchmarks.majordomo.JeromqMdp.CLIENT;
import static io.zmtp.benchmarks.majordomo.JeromqMdp.EMPTY;

/**
 * The same workload on JeroMQ 0.6.0: {@link JeromqMdpBroker}, {@link JeromqMdpWorker}s, and a REQ
 * client (synchronous, the guide's mdcliapi) or a DEALER client (asynchronous, mdcliapi2) driven by
 * the benchmark thread; one context each for broker, workers and client.
 */
final class JeromqMajordomoRig implements MajordomoRig {
    private JeromqMdpBroker broker;
    private ZContext workerCtx;
    private ZContext clientCtx;
    private final List<JeromqMdpWorker> workers = new ArrayList<>();
    private ZMQ.Socket req;
    private ZMQ.Socket dealer;
    private final byte[] service = SERVICE.getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    @Override
    public void start(int n) throws Exception {
        broker = new JeromqMdpBroker();
        workerCtx = new ZContext(1);
        clientCtx = new ZContext(1);
        for (int i = 0; i < n; i++) {
            workers.add(new JeromqMdpWorker(workerCtx, broker.endpoint(), SERVICE));
        }
        long deadline = System.currentTimeMillis() + 30_000;
        while (broker.workers() < n) {
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("workers did not register");
            }
            Thread.sleep(1);
        }
        req = clientCtx.createSocket(org.zeromq.SocketType.REQ);
        req.setLinger(0);
        req.setReceiveTimeOut(30_000);
        req.connect(broker.endpoint());
        dealer = clientCtx.createSocket(org.zeromq.SocketType.DEALER);
        dealer.setLinger(0);
        dealer.setHWM(0);
        dealer.setReceiveTimeOut(60_000);
        dealer.connect(broker.endpoint());
    }

    @Override
    public long synchronous(int n) {
        long replies = 0;
        for (int i = 0; i < n; i++) {
            JeromqMdp.send(req, CLIENT, service, BODY);
            byte[] first = req.recv(0);
            if (first == null) {
                throw new IllegalStateException("no reply after " + replies);
            }
            while (req.hasReceiveMore()) {
                req.recv(0);
            }
            replies++;
        }
        return replies;
    }

    @Override
    public long asynchronous(int n) {
        for (int i = 0; i < n; i++) {
            JeromqMdp.send(dealer, EMPTY, CLIENT, service, BODY);
        }
        long replies = 0;
        for (int i = 0; i < n; i++) {
            byte[] first = dealer.recv(0);
            if (first == null) {
                throw new IllegalStateException("no reply after " + replies);
            }
            while (dealer.hasReceiveMore()) {
                dealer.recv(0);
            }
            replies++;
        }
        return replies;
    }

    @Override
    public void close() {
        close(workers, clientCtx, workerCtx, broker);
    }

    /**
     * Stops the workers (all at once, then each is joined), closes the contexts, then the broker;
     * any of them may be null (a start that failed half way).
     */
    static void close(List<JeromqMdpWorker> workers, ZContext clientCtx, ZContext workerCtx, JeromqMdpBroker broker) {
        for (JeromqMdpWorker w : workers) {
            w.stop();
        }
        for (JeromqMdpWorker w : workers) {
            w.close();
        }
        for (ZContext c : new ZContext[] {clientCtx, workerCtx}) {
            if (c != null) {
                c.close();
            }
        }
        if (broker != null) {
            broker.close();
        }
    }
}
