package io.zmtp.socket;

import io.netty.util.concurrent.Future;
import io.zmtp.wire.Frames;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.jctools.queues.SpscArrayQueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * A blocking facade over a {@link ZmtpSocket}, for a user thread: send and receive with
 * timeouts, as with libzmq's zmq_send/zmq_recv. Like a ZeroMQ socket it is used by one thread
 * at a time.
 *
 * <p>Messages cross between the user thread and the socket's event loop through
 * single-producer queues. A burst of sends costs one task on the loop (scheduled when the
 * outgoing queue turns non-empty), and the loop wakes the user thread only when it is parked
 * waiting, so a busy path pays no wake-up per message. Sending blocks when the outgoing queue
 * (the send high-water mark) is full because no peer can take more; receiving pauses reading
 * from peers once the receive high-water mark of messages waits unconsumed.
 *
 * <p>The socket type's rules apply as they do to the reactor API, checked on the user's thread
 * when it sends: a REQ's second request before it received the reply, or a REP's send without a
 * request, throws {@link SocketStateException}.
 */
public final class BlockingSocket implements AutoCloseable {
    /** See {@link LookBeforePark}: a receiver spins, then yields, before it parks. */
    private static final int SPINS = LookBeforePark.SPINS;
    private static final long WAIT_BEFORE_PARK_NANOS = LookBeforePark.NANOS;

    private final ZmtpSocket socket;
    private final SpscArrayQueue<ZmtpMessage> outbox;
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drainTask = this::drainOutbox;
    private volatile Thread blockedSender;

    private final BlockingInbox inbox;
    private final MultipartCursor cursor = new MultipartCursor();
    /** The routing id of the last message taken (SERVER, PEER), 0 = none: the user's thread only. */
    private int lastRoutingId;

    BlockingSocket(ZmtpSocket socket) {
        this.socket = socket;
        // This thread is the application now: the type's send/receive state (REQ and REP
        // alternation) advances when this facade sends and when its user takes a message.
        socket.sendReceiveState().keepOnUserThread();
        this.outbox = new SpscArrayQueue<>(Math.max(16, socket.options().sendHwm()));
        this.inbox = new BlockingInbox(socket.core(), socket.receiving());
        socket.onMessage(inbox::offer);
        socket.counters().userQueues(new SocketCounters.UserQueues() {
            @Override
            public long queuedOut() {
                return outbox.size();
            }

            @Override
            public long queuedIn() {
                return inbox.size();
            }
        });
        // However the socket is closed (here, or by its context), release what still waits here.
        socket.closeFuture().addListener(f -> releaseQueues());
    }

    /** On the loop, once the socket has closed. */
    private void releaseQueues() {
        releaseOutbox();
        inbox.close();
    }

    /** On the loop (the outbox's one consumer): releases what waits to be sent. */
    private void releaseOutbox() {
        ZmtpMessage m;
        while ((m = outbox.poll()) != null) {
            m.release();
        }
    }

    /** Wraps an existing socket, which must have no message handler of its own. */
    public static BlockingSocket wrap(ZmtpSocket socket) {
        return new BlockingSocket(socket);
    }

    /** The reactor socket underneath (bind, connect, monitor, options). */
    public ZmtpSocket socket() {
        return socket;
    }

    public SocketType type() {
        return socket.type();
    }

    /** Binds and waits for the result: the endpoint bound (with the port chosen for port 0). */
    public String bind(String endpoint) {
        return await(socket.bind(endpoint), Duration.ofSeconds(30));
    }

    /** Starts connecting (in the background; sends wait for a peer). */
    public BlockingSocket connect(String endpoint) {
        await(socket.connect(endpoint), Duration.ofSeconds(30));
        return this;
    }

    public void disconnect(String endpoint) {
        await(socket.disconnect(endpoint), Duration.ofSeconds(30));
    }

    /**
     * Subscribes to a prefix (SUB, XSUB); other types throw {@link UnsupportedOperationException}.
     */
    public BlockingSocket subscribe(byte[] prefix) {
        await(socket.subscribe(prefix), Duration.ofSeconds(30));
        return this;
    }

    public BlockingSocket subscribe(String prefix) {
        return subscribe(prefix.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    public BlockingSocket unsubscribe(byte[] prefix) {
        await(socket.unsubscribe(prefix), Duration.ofSeconds(30));
        return this;
    }

    public BlockingSocket unsubscribe(String prefix) {
        return unsubscribe(prefix.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    // ------------------------------------------------------------------ RADIO and DISH

    /** The group of the last message {@link #receive}, {@link #recv} and the like took (DISH), or null. */
    private String lastGroup;

    /**
     * RADIO: sends {@code body} (copied) to the DISHes that joined {@code group} (1-255 UTF-8
     * bytes); waits as {@link #send(ZmtpMessage)} does.
     */
    public void sendToGroup(String group, byte[] body) {
        ZmtpMessage m = ZmtpMessage.of(body.clone());
        try {
            m.group(group);
        } catch (IllegalArgumentException e) {
            m.release();
            throw e;
        }
        send(m);
    }

    /** DISH: the group of the last message received by {@link #recv()} or {@link #receive()}; null if it had none. */
    public String receivedGroup() {
        return lastGroup;
    }

    /** DISH: joins {@code group} (see {@link DishSocket#join}); other types throw {@link UnsupportedOperationException}. */
    public BlockingSocket join(String group) {
        await(dish("join").join(group), Duration.ofSeconds(30));
        return this;
    }

    /** DISH: leaves {@code group} (see {@link DishSocket#leave}). */
    public BlockingSocket leave(String group) {
        await(dish("leave").leave(group), Duration.ofSeconds(30));
        return this;
    }

    private DishSocket dish(String what) {
        if (socket instanceof DishSocket d) {
            return d;
        }
        throw new UnsupportedOperationException("a " + socket.type() + " socket cannot " + what
                + " a group: only DISH sockets have groups");
    }

    /**
     * The checks a send must pass before it is queued for the loop, where a refusal could reach
     * no caller: the single-frame rule and the type's own (a RADIO's group). The message is untouched.
     */
    private void checkSendable(ZmtpMessage msg) {
        SendPath.checkFrameCount(socket.type(), msg.size());
        String refusal = socket.sendRefusalOf(msg);
        if (refusal != null) {
            throw new IllegalArgumentException(refusal);
        }
    }

    // ------------------------------------------------------------------ sending

    /** Sends, waiting as long as the socket's send timeout allows (forever by default). */
    public void send(ZmtpMessage msg) {
        Duration t = socket.options().sendTimeout();
        if (!send(msg, t == null ? null : t)) {
            msg.release();
            throw new SendTimeoutException("send timed out at the high-water mark");
        }
    }

    public void send(String... frames) {
        SendPath.checkFrameCount(socket.type(), frames.length); // before a message exists to leak
        send(ZmtpMessage.ofStrings(frames));
    }

    /**
     * Sends, waiting at most {@code timeout} (null: forever) for room. Returns false on timeout,
     * and the caller still owns the message.
     */
    public boolean send(ZmtpMessage msg, Duration timeout) {
        checkNoFramesToSend();
        if (msg.isEmpty()) {
            throw new IllegalArgumentException("a message has at least one frame");
        }
        checkSendable(msg);
        if (socket.isClosing()) {
            throw new SocketClosedException("socket is closed");
        }
        socket.sendReceiveState().start(); // the type's state (REQ, REP): throws SocketStateException
        boolean sent = false;
        try {
            sent = handOver(msg, timeout);
            return sent;
        } finally {
            if (!sent) {
                socket.sendReceiveState().abandon();
            }
        }
    }

    private boolean handOver(ZmtpMessage msg, Duration timeout) {
        if (socket.failsUnroutable()) {
            // Unroutable messages must fail this call, so wait for the loop's verdict.
            await(socket.send(msg), timeout == null ? Duration.ofDays(365) : timeout);
            return true;
        }
        if (!enqueue(msg)) {
            long deadline = timeout == null ? Long.MAX_VALUE : System.nanoTime() + timeout.toNanos();
            blockedSender = Thread.currentThread();
            try {
                while (!enqueue(msg)) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return false;
                    }
                    LockSupport.parkNanos(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
                    if (socket.isClosing()) {
                        throw new SocketClosedException("socket is closed");
                    }
                }
            } finally {
                blockedSender = null;
            }
        }
        return true;
    }

    /**
     * Puts {@code msg} in the outbox (false when full) and makes sure a drain task follows. The
     * drain also releases what a send put there after the close had emptied the outbox, so a
     * send racing the close cannot leak its message.
     */
    boolean enqueue(ZmtpMessage msg) {
        boolean queued = outbox.offer(msg);
        scheduleDrain();
        return queued;
    }

    private void scheduleDrain() {
        if (drainScheduled.compareAndSet(false, true)) {
            socket.eventLoop().execute(drainTask);
        }
    }

    /** On the loop: hand queued messages to the socket while peers take them. */
    private void drainOutbox() {
        drainScheduled.set(false);
        ZmtpMessage m;
        boolean took = false;
        while ((m = outbox.peek()) != null) {
            if (socket.isClosing()) {
                if (socket.closeFuture().isDone()) {
                    // a send that raced the close put this here after releaseQueues emptied the
                    // outbox; every send schedules this task, so nothing is left behind
                    releaseOutbox();
                }
                return;
            }
            boolean taken;
            try {
                taken = socket.trySend(m);
            } catch (RuntimeException e) {
                outbox.poll();
                m.release();
                org.slf4j.LoggerFactory.getLogger(BlockingSocket.class).warn("{} send failed", socket, e);
                continue;
            }
            if (!taken) {
                socket.blocked().whenRoom(this::scheduleDrain);
                break;
            }
            outbox.poll();
            took = true;
        }
        Thread s = blockedSender;
        if (took && s != null) {
            LockSupport.unpark(s);
        }
    }

    // ------------------------------------------------------------------ receiving

    /** Receives a message, waiting for it as long as needed. */
    public ZmtpMessage receive() {
        return receive(null);
    }

    /** Receives a message, or returns null after {@code timeout} (null: wait forever). */
    public ZmtpMessage receive(Duration timeout) {
        checkNoFramesReceived();
        ZmtpMessage m = take();
        if (m != null) {
            return m;
        }
        for (int i = 0; i < SPINS; i++) {
            Thread.onSpinWait();
            if ((m = take()) != null) {
                return m;
            }
        }
        long now = System.nanoTime();
        long deadline = timeout == null ? Long.MAX_VALUE : now + timeout.toNanos();
        long stopLooking = Math.min(deadline, now + WAIT_BEFORE_PARK_NANOS);
        while (System.nanoTime() < stopLooking) {
            Thread.yield();
            if ((m = take()) != null) {
                return m;
            }
        }
        Thread me = Thread.currentThread();
        try {
            for (;;) {
                // (re)armed before each look: the loop takes it out when it wakes us, and a message
                // that arrives between this look and the park leaves a permit, so none is missed
                inbox.receiver = me;
                if ((m = take()) != null) {
                    return m;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                if (socket.isClosed()) {
                    throw new SocketClosedException("socket is closed");
                }
                LockSupport.parkNanos(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
                if (Thread.interrupted()) {
                    Thread.currentThread().interrupt();
                    return null;
                }
            }
        } finally {
            inbox.receiver = null;
        }
    }

    /** Receives a message if one is waiting, without blocking. */
    public ZmtpMessage tryReceive() {
        checkNoFramesReceived();
        return take();
    }

    /** Receives and returns the frames as UTF-8 strings (and releases the message); null on timeout. */
    public List<String> receiveStrings(Duration timeout) {
        ZmtpMessage m = receive(timeout);
        if (m == null) {
            return null;
        }
        try {
            List<String> l = new ArrayList<>(m.size());
            for (int i = 0; i < m.size(); i++) {
                l.add(m.frameString(i));
            }
            return l;
        } finally {
            m.release();
        }
    }

    private ZmtpMessage take() {
        ZmtpMessage m = inbox.take();
        if (m != null) {
            lastRoutingId = m.routingId();
            lastGroup = m.group();
            socket.sendReceiveState().messageTaken(); // the type's state: a REQ's reply came, a REP has a request to answer
        }
        return m;
    }

    /** Whether a message is waiting. */
    public boolean hasMessage() {
        return inbox.hasMessage();
    }

    /** A poller watches this socket: {@code wake} runs (on the loop) when a message arrives. */
    void addPoller(Runnable wake) {
        inbox.addPoller(wake);
    }

    void removePoller(Runnable wake) {
        inbox.removePoller(wake);
    }

    // ------------------------------------------------------------------ routing ids (SERVER, PEER)

    /**
     * SERVER, PEER: sends {@code body} (copied) as a one-frame message to the peer with this
     * routing id (the {@link #recvRoutingId()} of a message it sent), waiting as
     * {@link #send(ZmtpMessage)} does; throws {@link UnroutableMessageException} when no peer
     * with that id is connected. Other types ignore the id.
     */
    public void sendTo(int routingId, byte[] body) {
        send(ZmtpMessage.of(body.clone()).routingId(routingId));
    }

    /**
     * The routing id of the last message received by {@link #recv()}, {@link #receive()},
     * {@link #receiveFrames()} and their variants: on a SERVER or PEER, the peer to answer with
     * {@link #sendTo}; 0 when that message carried none (other types), or none was received.
     */
    public int recvRoutingId() {
        return lastRoutingId;
    }

    /**
     * PEER: connects to {@code endpoint} and returns the routing id its peer has, kept across
     * reconnects ({@link PeerSocket#connectPeer}); waits up to 30 seconds for the first
     * connection's handshake, then throws {@link SendTimeoutException}. Other types throw
     * {@link UnsupportedOperationException}.
     */
    public int connectPeer(String endpoint) {
        return connectPeer(endpoint, Duration.ofSeconds(30));
    }

    /** {@link #connectPeer(String)}, waiting at most {@code timeout} for the first handshake. */
    public int connectPeer(String endpoint, Duration timeout) {
        if (!(socket instanceof PeerSocket peer)) {
            throw new UnsupportedOperationException("connectPeer is for PEER sockets, not " + socket.type());
        }
        return await(peer.connectPeer(endpoint), timeout);
    }

    // ------------------------------------------------------------------ byte arrays (JeroMQ's shape)
    //
    // The garbage-collected way in: frames as byte arrays, copied once each way, nothing to
    // release. A message is sent frame by frame (sendMore, then send for the last frame) or whole
    // (Frames), and received frame by frame (recv while hasReceiveMore) or whole (receiveFrames).

    /** Frames given to {@link #sendMore} for the message the next {@code send} finishes. */
    private final ArrayList<byte[]> framesToSend = new ArrayList<>();

    /**
     * Adds a frame to the message being built; the next {@link #send(byte[])} or
     * {@link #send(String)} adds the last frame and sends it. {@code frame} is copied, so the
     * array is the caller's again at once.
     */
    public BlockingSocket sendMore(byte[] frame) {
        framesToSend.add(frame.clone());
        return this;
    }

    /** Adds a UTF-8 frame to the message being built (see {@link #sendMore(byte[])}). */
    public BlockingSocket sendMore(String frame) {
        framesToSend.add(frame.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return this;
    }

    /**
     * Sends {@code frame} as the last frame of the message started with {@link #sendMore}, or as
     * a message of its own; waits as {@link #send(ZmtpMessage)} does. The frames are copied once,
     * into the message's buffers; nothing needs releasing.
     */
    public void send(byte[] frame) {
        send(finishFrames(frame));
    }

    /** {@link #send(byte[])} of a UTF-8 frame. */
    public void send(String frame) {
        send(finishFrames(frame.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    private Frames finishFrames(byte[] last) {
        if (framesToSend.isEmpty()) {
            return Frames.of(last);
        }
        framesToSend.add(last);
        Frames f = Frames.of(framesToSend);
        framesToSend.clear();
        return f;
    }

    /**
     * Sends a whole message of byte-array frames, copied once into the message's buffers; waits as
     * {@link #send(ZmtpMessage)} does (and throws {@link SendTimeoutException} after the send
     * timeout).
     */
    public void send(Frames frames) {
        Duration t = socket.options().sendTimeout();
        if (!send(frames, t)) {
            throw new SendTimeoutException("send timed out at the high-water mark");
        }
    }

    /**
     * Sends a whole message of byte-array frames, waiting at most {@code timeout} (null: forever)
     * for room; false on timeout (nothing to release either way).
     */
    public boolean send(Frames frames, Duration timeout) {
        checkNoFramesToSend();
        if (frames.isEmpty()) {
            throw new IllegalArgumentException("a message has at least one frame");
        }
        SendPath.checkFrameCount(socket.type(), frames.size());
        if (socket.isClosing()) {
            throw new SocketClosedException("socket is closed");
        }
        socket.sendReceiveState().start(); // the type's state (REQ, REP): throws SocketStateException
        // With mandatory routing the socket owns the message from the first step; otherwise a
        // message that timed out or met the close was never queued and is still ours to release.
        boolean ours = !socket.failsUnroutable();
        ZmtpMessage m = null;
        boolean sent = false;
        try {
            m = frames.toMessage();
            checkSendable(m);
            sent = handOver(m, timeout);
            return sent;
        } finally {
            if (!sent) {
                socket.sendReceiveState().abandon();
                if (ours && m != null) {
                    m.release();
                }
            }
        }
    }

    private void checkNoFramesToSend() {
        if (!framesToSend.isEmpty()) {
            throw new IllegalStateException("a message begun with sendMore waits for its last frame: "
                    + "finish it with send(byte[]) or send(String)");
        }
    }

    /**
     * The next frame received, as a new array: the next frame of the message being read, or the
     * first frame of the next message, waiting for it as long as needed. {@link #hasReceiveMore()}
     * says whether the message has more frames.
     */
    public byte[] recv() {
        return recv(null);
    }

    /** {@link #recv()}, waiting at most {@code timeout} (null: forever) for a message; null on timeout. */
    public byte[] recv(Duration timeout) {
        if (!cursor.hasMore()) {
            ZmtpMessage m = receive(timeout);
            if (m == null) {
                return null;
            }
            cursor.start(m);
        }
        return cursor.next();
    }

    /** {@link #recv()} decoded as UTF-8. */
    public String recvStr() {
        return recvStr(null);
    }

    /** {@link #recv(Duration)} decoded as UTF-8; null on timeout. */
    public String recvStr(Duration timeout) {
        byte[] f = recv(timeout);
        return f == null ? null : new String(f, java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Whether the message {@link #recv()} is reading has more frames. */
    public boolean hasReceiveMore() {
        return cursor.hasMore();
    }

    /** Receives a whole message as byte-array frames (copied once; nothing to release), waiting as long as needed. */
    public Frames receiveFrames() {
        return receiveFrames(null);
    }

    /**
     * Receives a whole message as byte-array frames, or returns null after {@code timeout} (null:
     * wait forever). Each frame is copied once into a new array and the message released here.
     */
    public Frames receiveFrames(Duration timeout) {
        ZmtpMessage m = receive(timeout);
        return m == null ? null : Frames.takeFrom(m);
    }

    private void checkNoFramesReceived() {
        cursor.checkDone();
    }

    // ------------------------------------------------------------------ closing

    /** Closes with the socket's linger and waits for it. */
    @Override
    public void close() {
        close(socket.options().linger());
    }

    /** Closes, flushing for at most {@code linger}, and waits until the socket has closed. */
    public void close(Duration linger) {
        Future<Void> f = socket.close(linger);
        f.awaitUninterruptibly(linger.toMillis() + 5000);
    }

    static <T> T await(Future<T> f, Duration timeout) {
        try {
            return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof RuntimeException) {
                throw (RuntimeException) c;
            }
            throw new IllegalStateException(c.getMessage(), c);
        } catch (TimeoutException e) {
            throw new SendTimeoutException("timed out after " + timeout.toMillis() + " ms");
        }
    }

    @Override
    public String toString() {
        return "Blocking" + socket;
    }
}
