package io.zmtp.benchmarks.majordomo;

import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import java.util.ArrayList;
import java.util.List;

import static io.zmtp.benchmarks.majordomo.JeromqMdp.EMPTY;
import static io.zmtp.benchmarks.majordomo.JeromqMdp.WORKER;
import static io.zmtp.benchmarks.majordomo.JeromqMdp.code;

/**
 * A small MDP/0.1 echo worker on JeroMQ, the benchmark's twin of {@code MajordomoWorker}: a DEALER,
 * READY, then a receive loop (a receive timeout as its poll) that answers each REQUEST with its
 * body and heartbeats, on a thread of its own (the guide's mdworker).
 */
final class JeromqMdpWorker implements Runnable {
    private final ZContext ctx;
    private final String endpoint;
    private final String service;
    private final Thread thread;
    private volatile boolean running = true;

    JeromqMdpWorker(ZContext ctx, String endpoint, String service) {
        this.ctx = ctx;
        this.endpoint = endpoint;
        this.service = service;
        thread = new Thread(this, "jeromq-mdworker");
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void run() {
        ZMQ.Socket s = ctx.createSocket(org.zeromq.SocketType.DEALER);
        s.setLinger(0);
        s.setHWM(0);
        s.connect(endpoint);
        JeromqMdp.send(s, EMPTY, WORKER, code(JeromqMdp.READY), service.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        s.setReceiveTimeOut(100);
        long heartbeatAt = System.currentTimeMillis() + JeromqMdp.HEARTBEAT_INTERVAL_MS;
        while (running) {
            List<byte[]> m = JeromqMdp.receiveOrNull(s);
            if (m != null) {
                // "" | MDPW01 | 02 | client | "" | body...
                if (m.size() >= 6 && m.get(2).length == 1 && m.get(2)[0] == JeromqMdp.REQUEST) {
                    List<byte[]> reply = new ArrayList<>(m.size());
                    reply.add(EMPTY);
                    reply.add(WORKER);
                    reply.add(code(JeromqMdp.REPLY));
                    reply.add(m.get(3));
                    reply.add(EMPTY);
                    reply.addAll(m.subList(5, m.size()));
                    JeromqMdp.send(s, reply);
                    heartbeatAt = System.currentTimeMillis() + JeromqMdp.HEARTBEAT_INTERVAL_MS;
                }
            }
            if (System.currentTimeMillis() >= heartbeatAt) {
                JeromqMdp.send(s, EMPTY, WORKER, code(JeromqMdp.HEARTBEAT));
                heartbeatAt = System.currentTimeMillis() + JeromqMdp.HEARTBEAT_INTERVAL_MS;
            }
        }
        JeromqMdp.send(s, EMPTY, WORKER, code(JeromqMdp.DISCONNECT));
        s.close();
    }

    /** Tells the worker to stop, without waiting (many workers stop at once, then each {@link #close}). */
    void stop() {
        running = false;
    }

    void close() {
        running = false;
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
