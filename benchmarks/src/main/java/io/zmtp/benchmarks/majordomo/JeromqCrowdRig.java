package io.zmtp.benchmarks.majordomo;

import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static io.zmtp.benchmarks.majordomo.JeromqMdp.CLIENT;
import static io.zmtp.benchmarks.majordomo.JeromqMdp.EMPTY;
import static io.zmtp.benchmarks.majordomo.MajordomoRig.BODY;
import static io.zmtp.benchmarks.majordomo.MajordomoRig.SERVICE;

/**
 * The crowd on JeroMQ 0.6.0: {@link JeromqMdpBroker}, {@link JeromqMdpWorker}s (a thread each,
 * as the guide's mdworker) and the clients' DEALER sockets (mdcliapi2) driven by one thread that
 * polls them all and answers each reply with the next request on the same socket.
 */
final class JeromqCrowdRig implements MajordomoCrowdRig {
    private JeromqMdpBroker broker;
    private ZContext workerCtx;
    private ZContext clientCtx;
    private final List<JeromqMdpWorker> workers = new ArrayList<>();
    private final byte[] service = SERVICE.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private final AtomicLong replies = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean running = true;
    private Thread driver;
    private final java.util.Set<Long> brokerThreads = new java.util.HashSet<>();

    @Override
    public void start(int nWorkers, int nClients, int window) throws Exception {
        java.util.Set<Long> before = MajordomoCrowdRig.liveThreads();
        broker = new JeromqMdpBroker();
        brokerThreads.addAll(MajordomoCrowdRig.liveThreads());
        brokerThreads.removeAll(before); // its receive loop and its context's I/O thread
        workerCtx = new ZContext(1);
        clientCtx = new ZContext(1);
        for (int i = 0; i < nWorkers; i++) {
            workers.add(new JeromqMdpWorker(workerCtx, broker.endpoint(), SERVICE));
        }
        long deadline = System.currentTimeMillis() + 60_000;
        while (broker.workers() < nWorkers) {
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("workers did not register: " + broker.workers());
            }
            Thread.sleep(10);
        }
        List<ZMQ.Socket> dealers = new ArrayList<>();
        for (int i = 0; i < nClients; i++) {
            ZMQ.Socket d = clientCtx.createSocket(SocketType.DEALER);
            d.setLinger(0);
            d.setHWM(0);
            d.connect(broker.endpoint());
            dealers.add(d);
        }
        driver = new Thread(() -> drive(dealers, window), "jeromq-crowd-clients");
        driver.setDaemon(true);
        driver.start();
    }

    /** Fills every client's window, then sends a request on each reply; on this thread only. */
    private void drive(List<ZMQ.Socket> dealers, int window) {
        try {
            ZMQ.Poller poller = clientCtx.createPoller(dealers.size());
            for (ZMQ.Socket d : dealers) {
                poller.register(d, ZMQ.Poller.POLLIN);
                for (int i = 0; i < window; i++) {
                    JeromqMdp.send(d, EMPTY, CLIENT, service, BODY);
                }
            }
            while (running) {
                if (poller.poll(100) <= 0) {
                    continue;
                }
                for (int i = 0; i < dealers.size(); i++) {
                    if (!poller.pollin(i)) {
                        continue;
                    }
                    ZMQ.Socket d = dealers.get(i);
                    byte[] first;
                    while ((first = d.recv(ZMQ.DONTWAIT)) != null) {
                        while (d.hasReceiveMore()) {
                            d.recv(0);
                        }
                        replies.incrementAndGet();
                        JeromqMdp.send(d, EMPTY, CLIENT, service, BODY);
                    }
                }
            }
            poller.close();
        } catch (Throwable e) {
            if (running) {
                failure.compareAndSet(null, e);
            }
        }
    }

    @Override
    public long replies() {
        return replies.get();
    }

    @Override
    public long brokerCpuNanos() {
        return MajordomoCrowdRig.cpuNanos(brokerThreads);
    }

    @Override
    public void check() {
        Throwable e = failure.get();
        if (e != null) {
            throw new IllegalStateException("the clients' thread failed", e);
        }
    }

    @Override
    public void close() {
        running = false;
        if (driver != null) {
            try {
                driver.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        JeromqMajordomoRig.close(workers, clientCtx, workerCtx, broker);
    }
}
