package io.zmtp.patterns.simplepirate;

import io.zmtp.patterns.kit.ReadyWorkers;
import io.zmtp.socket.RoutingId;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.ZmtpMessage;

import java.util.ArrayDeque;
import java.util.Objects;

/**
 * The request side of a least-recently-used queue (Simple and Paranoid Pirate): each request
 * goes to the worker ready longest; while no worker is ready, requests wait and the frontend
 * stops reading, so further requests wait in the clients' connections (the guide's queue does
 * the same by not polling its frontend). A ready worker whose connection is gone is dropped when
 * its turn comes. How a request is framed for a worker, and what "connected" means, is the
 * owner's {@link Route}. Used on the owner's loop only.
 *
 * @param <W> what the owner keeps per ready worker
 */
public final class LruDispatcher<W> {

    /** How requests reach workers. */
    public interface Route<W> {
        /** Whether the worker's connection is still there. */
        boolean connected(W worker);

        /** The worker's connection was gone when its turn came: it was dropped. */
        void gone(W worker);

        /** Sends {@code request} (ownership passes) to {@code worker}, now busy. */
        void send(W worker, ZmtpMessage request);
    }

    private final ZmtpSocket frontend;
    private final Route<W> route;
    private final ReadyWorkers<W> ready = new ReadyWorkers<>();
    private final ArrayDeque<ZmtpMessage> waiting = new ArrayDeque<>();
    private boolean reading = true;
    private boolean closed;

    public LruDispatcher(ZmtpSocket frontend, Route<W> route) {
        this.frontend = Objects.requireNonNull(frontend);
        this.route = Objects.requireNonNull(route);
    }

    /** Call once on the loop before the frontend binds: no worker yet, so nothing is read. */
    public void start() {
        updateReading();
    }

    /** A request from the frontend (ownership passes): to a worker now, or waits. */
    public void request(ZmtpMessage msg) {
        if (closed) {
            msg.release();
            return;
        }
        if (!waiting.isEmpty() || !dispatch(msg)) {
            waiting.add(msg);
        }
        updateReading();
    }

    /** The worker is ready (at the end of the LRU order if it was not); true if it was added. */
    public boolean ready(RoutingId id, W worker) {
        boolean added = !closed && ready.add(id, worker);
        dispatchWaiting();
        return added;
    }

    /** The worker is gone or expired: it gets no more requests. */
    public boolean remove(RoutingId id) {
        boolean removed = ready.remove(id);
        updateReading();
        return removed;
    }

    public boolean isReady(RoutingId id) {
        return ready.contains(id);
    }

    public int readyCount() {
        return ready.size();
    }

    /** Requests waiting for a worker. */
    public int waitingCount() {
        return waiting.size();
    }

    /** Drops the waiting requests (released) and the ready workers; stops reading. */
    public void close() {
        closed = true;
        ZmtpMessage m;
        while ((m = waiting.poll()) != null) {
            m.release();
        }
        ready.clear();
        updateReading();
    }

    private boolean dispatch(ZmtpMessage request) {
        W w = ready.poll(route::connected, route::gone);
        if (w == null) {
            return false;
        }
        route.send(w, request);
        return true;
    }

    private void dispatchWaiting() {
        ZmtpMessage next;
        while ((next = waiting.peek()) != null && dispatch(next)) {
            waiting.poll();
        }
        updateReading();
    }

    /** Reads requests only while a worker is ready for one. */
    private void updateReading() {
        boolean read = !ready.isEmpty() && waiting.isEmpty() && !closed;
        if (read != reading) {
            reading = read;
            if (read) {
                frontend.resumeReceiving();
            } else {
                frontend.pauseReceiving();
            }
        }
    }
}
