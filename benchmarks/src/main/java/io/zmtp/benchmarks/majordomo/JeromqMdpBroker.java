package io.zmtp.benchmarks.majordomo;

import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import static io.zmtp.benchmarks.majordomo.JeromqMdp.CLIENT;
import static io.zmtp.benchmarks.majordomo.JeromqMdp.EMPTY;
import static io.zmtp.benchmarks.majordomo.JeromqMdp.WORKER;
import static io.zmtp.benchmarks.majordomo.JeromqMdp.code;

/**
 * A small MDP/0.1 broker on JeroMQ, the benchmark's twin of {@code MajordomoBroker}: one ROUTER, a
 * queue and an LRU deque of idle workers per service, heartbeats to idle workers, expiry of silent
 * workers. It runs a receive loop (a receive timeout as its poll) on a thread of its own.
 */
final class JeromqMdpBroker implements Runnable {
    private final ZContext ctx = new ZContext(1);
    private final ZMQ.Socket socket;
    private final String endpoint;
    private final Thread thread;
    private volatile boolean running = true;

    private final Map<String, Service> services = new HashMap<>();
    private final Map<ByteBuffer, Worker> workers = new HashMap<>();

    JeromqMdpBroker() {
        socket = ctx.createSocket(org.zeromq.SocketType.ROUTER);
        socket.setLinger(0);
        socket.setHWM(0);
        int port = socket.bindToRandomPort("tcp://127.0.0.1");
        endpoint = "tcp://127.0.0.1:" + port;
        thread = new Thread(this, "jeromq-mdbroker");
        thread.setDaemon(true);
        thread.start();
    }

    String endpoint() {
        return endpoint;
    }

    int workers() {
        return workerCount;
    }

    private volatile int workerCount;

    @Override
    public void run() {
        // One socket: a blocking receive with a timeout serves as the poll (JeroMQ's Poller costs
        // a selector round per call, which would handicap the twin).
        socket.setReceiveTimeOut(100);
        long heartbeatAt = System.currentTimeMillis() + JeromqMdp.HEARTBEAT_INTERVAL_MS;
        while (running) {
            List<byte[]> m = JeromqMdp.receiveOrNull(socket);
            if (m != null) {
                handle(m);
            }
            long now = System.currentTimeMillis();
            if (now >= heartbeatAt) {
                for (Service s : services.values()) {
                    for (Worker w : s.idle) {
                        JeromqMdp.send(socket, w.id, EMPTY, WORKER, code(JeromqMdp.HEARTBEAT));
                    }
                }
                purge(now);
                heartbeatAt = now + JeromqMdp.HEARTBEAT_INTERVAL_MS;
            }
        }
        ctx.close();
    }

    private void handle(List<byte[]> m) {
        if (m.size() < 4 || m.get(1).length != 0) {
            return;
        }
        byte[] sender = m.get(0);
        byte[] header = m.get(2);
        if (java.util.Arrays.equals(header, CLIENT) && m.size() >= 5) {
            String name = new String(m.get(3), java.nio.charset.StandardCharsets.UTF_8);
            Service s = services.computeIfAbsent(name, Service::new);
            List<byte[]> body = new ArrayList<>(m.subList(4, m.size()));
            s.requests.add(new Object[] {sender, body});
            dispatch(s);
        } else if (java.util.Arrays.equals(header, WORKER) && m.get(3).length == 1) {
            byte cmd = m.get(3)[0];
            ByteBuffer key = ByteBuffer.wrap(sender);
            Worker w = workers.get(key);
            if (w != null) {
                w.expiry = System.currentTimeMillis() + JeromqMdp.HEARTBEAT_INTERVAL_MS * JeromqMdp.HEARTBEAT_LIVENESS;
            }
            if (cmd == JeromqMdp.READY && m.size() == 5 && w == null) {
                Service s = services.computeIfAbsent(new String(m.get(4), java.nio.charset.StandardCharsets.UTF_8),
                        Service::new);
                w = new Worker(sender, s);
                workers.put(key, w);
                workerCount = workers.size();
                s.idle.add(w);
                dispatch(s);
            } else if (cmd == JeromqMdp.REPLY && w != null && m.size() >= 7) {
                List<byte[]> reply = new ArrayList<>(m.size());
                reply.add(m.get(4));
                reply.add(EMPTY);
                reply.add(CLIENT);
                reply.add(w.service.name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                reply.addAll(m.subList(6, m.size()));
                JeromqMdp.send(socket, reply);
                w.service.idle.add(w);
                dispatch(w.service);
            } else if (cmd == JeromqMdp.DISCONNECT && w != null) {
                delete(w);
            } else if (cmd != JeromqMdp.HEARTBEAT || w == null) {
                JeromqMdp.send(socket, sender, EMPTY, WORKER, code(JeromqMdp.DISCONNECT));
                if (w != null) {
                    delete(w);
                }
            }
        }
    }

    @SuppressWarnings("unchecked")
    private void dispatch(Service s) {
        while (!s.idle.isEmpty() && !s.requests.isEmpty()) {
            Worker w = s.idle.poll();
            Object[] r = s.requests.poll();
            List<byte[]> body = (List<byte[]>) r[1];
            List<byte[]> out = new ArrayList<>(6 + body.size());
            out.add(w.id);
            out.add(EMPTY);
            out.add(WORKER);
            out.add(code(JeromqMdp.REQUEST));
            out.add((byte[]) r[0]);
            out.add(EMPTY);
            out.addAll(body);
            JeromqMdp.send(socket, out);
        }
    }

    private void purge(long now) {
        for (Service s : services.values()) {
            for (Iterator<Worker> it = s.idle.iterator(); it.hasNext(); ) {
                Worker w = it.next();
                if (w.expiry < now) {
                    it.remove();
                    workers.remove(ByteBuffer.wrap(w.id));
                }
            }
        }
        workerCount = workers.size();
    }

    private void delete(Worker w) {
        workers.remove(ByteBuffer.wrap(w.id));
        w.service.idle.remove(w);
        workerCount = workers.size();
    }

    void close() {
        running = false;
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static final class Service {
        final String name;
        final ArrayDeque<Object[]> requests = new ArrayDeque<>();
        final ArrayDeque<Worker> idle = new ArrayDeque<>();

        Service(String name) {
            this.name = name;
        }
    }

    private static final class Worker {
        final byte[] id;
        final Service service;
        long expiry = System.currentTimeMillis() + JeromqMdp.HEARTBEAT_INTERVAL_MS * JeromqMdp.HEARTBEAT_LIVENESS;

        Worker(byte[] id, Service service) {
            this.id = id;
            this.service = service;
        }
    }
}
