package io.zmtp.cli;

import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import io.zmtp.socket.RouterSocket;
import io.zmtp.socket.SendTimeoutException;
import io.zmtp.socket.SocketClosedException;
import io.zmtp.socket.SocketEvent;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.wire.HeartbeatPolicy;
import io.zmtp.wire.SocketType;
import io.zmtp.wire.ZmtpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.BufferedWriter;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code zmtp cat}: one ZeroMQ socket between stdin and stdout, as zmq_cat. Each input line is
 * sent as one message and each message received is printed as one line; {@link MessageLines}
 * says how frames are written. Everything a socket does comes from the socket API: this class
 * only parses options and moves lines.
 *
 * <p>Three threads: the caller's waits for the end; an input thread reads lines and hands them
 * to the socket ({@link ZmtpSocket#send} futures, at most {@code --hwm} in flight, so a send
 * waits for a peer as a ZeroMQ queue does); an output thread prints what the socket's handler
 * (on the event loop) formatted, and reading from peers pauses while stdout lags behind.
 */
@Command(name = "cat", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Connects one ZeroMQ socket to stdin and stdout.",
            "Each input line is sent as one message, its frames separated by the delimiter (a tab); each "
                + "message received is printed as one line the same way. Input frames are sent as typed, "
                + "byte for byte. A received frame that is not plain text (binary data, a generated routing "
                + "id, a line break, the delimiter, text starting with 0x) is printed as 0x and hex; with "
                + "--0x an input frame written that way is sent as those bytes, so every printed line can be "
                + "sent back as it is. --hex writes and reads every frame as hex.",
            "Sends wait for a connected peer (at most --send-timeout). ROUTER sends a line to the peer its "
                + "first frame names, waiting for that peer to connect; REQ "
                + "waits for each reply before the next line; REP answers each request with the next line "
                + "(or with --echo). PUB drops lines no connected subscriber wants. SUB and PULL ignore "
                + "stdin; PUB and PUSH exit once stdin ends and its lines are sent. Others exit when stdin "
                + "ends, unless -n, --timeout or --echo keep them receiving."},
        footer = {"", "Security: PLAIN (--plain-user and --plain-password for a client; --plain-server with "
                + "--plain-account for a server) or CURVE (--curve-server-key for a client; --curve-server with "
                + "--curve-secret-key or --curve-cert for a server). 'zmtp keygen' makes CURVE keys.",
            "", "Exit status: 0 done; 1 --timeout passed with no message; 2 usage error; "
                + "3 the socket or the streams failed (bind refused, stdout closed, every peer refused us)."})
public final class CatCommand implements Callable<Integer> {
    private static final Logger log = LoggerFactory.getLogger(CatCommand.class);

    static final int EXIT_OK = 0;
    static final int EXIT_TIMEOUT = 1;
    static final int EXIT_USAGE = 2;
    static final int EXIT_FAILURE = 3;

    private static final Set<SocketType> SEND_ONLY = EnumSet.of(SocketType.PUB, SocketType.PUSH);
    private static final Set<SocketType> RECEIVE_ONLY = EnumSet.of(SocketType.SUB, SocketType.PULL);

    @Spec
    CommandSpec spec;

    @Option(names = {"-t", "--type"}, required = true, paramLabel = "TYPE",
            description = "Socket type: ${COMPLETION-CANDIDATES}.")
    SocketType type;

    @Option(names = {"-b", "--bind"}, paramLabel = "EP",
            description = "Endpoint to bind (repeatable): tcp://host:port, ipc://path. A tcp port 0 or * picks "
                    + "a free port; every bound endpoint is reported on stderr as 'bound <endpoint>'.")
    List<String> binds = new ArrayList<>();

    @Option(names = {"-c", "--connect"}, paramLabel = "EP",
            description = "Endpoint to connect to (repeatable); connects and reconnects in the background.")
    List<String> connects = new ArrayList<>();

    @Option(names = "--identity", paramLabel = "ID",
            description = "Routing identity announced to peers: this text's UTF-8 bytes, whatever the mode.")
    String identity;

    @Option(names = "--identity-hex", paramLabel = "HEX",
            description = "Routing identity announced to peers, as hex digits (instead of --identity).")
    String identityHex;

    @Option(names = "--subscribe", paramLabel = "PREFIX",
            description = "SUB, XSUB: receive messages whose first frame starts with PREFIX (repeatable; '' for "
                    + "all), written as an input frame is (hex with --hex, 0x and hex with --0x).")
    List<String> subscriptions = new ArrayList<>();

    @Option(names = "--echo",
            description = "Send every message received back: ROUTER to the peer it came from, REP as the reply.")
    boolean echo;

    @Option(names = {"-n", "--count"}, paramLabel = "N", description = "Exit with status 0 after N messages received.")
    long count;

    @Option(names = "--timeout", paramLabel = "MS",
            description = "Exit with status 1 when MS milliseconds pass with no message received (the clock "
                    + "restarts at each message).")
    long timeoutMs;

    @Option(names = "--heartbeat", paramLabel = "MS",
            description = "Send a ZMTP PING every MS milliseconds; a peer silent for MS after one is dropped.")
    long heartbeatMs;

    @Option(names = {"-d", "--delimiter"}, paramLabel = "DELIM",
            description = "Frame delimiter within a line (default: a tab; \\t also means a tab). Not a hex "
                    + "digit, x or a line break.")
    String delimiter = "\t";

    @Option(names = "--hex", description = "Read and write every frame as hex digits.")
    boolean hex;

    @Option(names = "--0x", description = "Read an input frame written as 0x and an even number of hex digits as "
            + "those bytes: the form in which frames that are not plain text (text starting with 0x included) "
            + "are printed, so that printed lines can be sent back as they are.")
    boolean zeroX;

    @Option(names = "--verbose", description = "Print the security mechanism and the socket's events on stderr: "
            + "connections, handshakes (a failed one with its reason: refused credentials, wrong server key), "
            + "reconnects, disconnections.")
    boolean verbose;

    @Option(names = {"-q", "--quiet"}, description = "Do not print the messages received.")
    boolean quiet;

    @Option(names = "--linger", paramLabel = "MS", defaultValue = "1000",
            description = "At exit, how long to keep sending what is still queued (default: ${DEFAULT-VALUE}).")
    long lingerMs;

    @Option(names = "--hwm", paramLabel = "N", defaultValue = "1000",
            description = "Messages queued per peer each way, and input lines in flight (default: ${DEFAULT-VALUE}).")
    int hwm;

    @Option(names = "--send-timeout", paramLabel = "MS", defaultValue = "0",
            description = "How long a line may wait for a peer to take it (ROUTER: for the peer it names to "
                    + "connect, then for room); past it the line is reported on stderr and dropped "
                    + "(default: 0, wait as long as it takes).")
    long sendTimeoutMs;

    @Option(names = "--stats", arity = "0..1", fallbackValue = "0", paramLabel = "MS", preprocessor = OptionalValue.class,
            description = "Print the socket's counters on stderr as a line starting 'stats:' at exit, and "
                    + "every MS milliseconds if given: messages and bytes in and out, queued messages, "
                    + "high-water-mark drops, peers, handshakes, reconnects, handshake failures by kind.")
    Long statsMs;

    @Mixin
    SecurityOptions security = new SecurityOptions();

    @Mixin
    LibzmqSocketOptions libzmqOptions = new LibzmqSocketOptions();

    private InputStream input = System.in;
    private PrintWriter stdout;

    // State of one run. The counters are used on the socket's event loop only.
    private final CompletableFuture<Integer> exit = new CompletableFuture<>();
    private Semaphore inFlight;
    private MessageLines lines;
    private PrintWriter err;
    private ZmtpSocket socket;
    private Output output;
    private Thread inputThread;
    private long received;
    private long answered;
    private long lastReceived;
    private int refusedEndpoints;
    /** ROUTER lines waiting for the peer they name, in input order (event loop only). */
    private final ArrayDeque<AwaitingPeer> awaitingPeer = new ArrayDeque<>();
    private boolean stopped;
    private boolean hexHintGiven;

    /** Where input lines come from (stdin by default; tests give their own). */
    void input(InputStream in) {
        this.input = in;
    }

    /** Where received lines go (UTF-8 on stdout by default; tests give their own). */
    void output(PrintWriter out) {
        this.stdout = out;
    }

    @Override
    public Integer call() {
        err = spec.commandLine().getErr();
        SocketOptions options;
        try {
            if (hex && zeroX) {
                throw new IllegalArgumentException("--hex and --0x exclude each other");
            }
            MessageLines.Mode mode = hex ? MessageLines.Mode.HEX
                    : zeroX ? MessageLines.Mode.ZERO_X : MessageLines.Mode.TEXT;
            lines = new MessageLines(delimiter.replace("\\t", "\t"), mode);
            validate();
            options = socketOptions();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        ZmtpContext ctx = ZmtpContext.create(1);
        try {
            return run(ctx, options);
        } finally {
            ctx.close(Duration.ofSeconds(5));
        }
    }

    private boolean receives() {
        return !SEND_ONLY.contains(type);
    }

    private boolean readsInput() {
        return !RECEIVE_ONLY.contains(type) && !(type == SocketType.REP && echo);
    }

    private void validate() {
        if (binds.isEmpty() && connects.isEmpty()) {
            throw new IllegalArgumentException("give at least one --bind or --connect endpoint");
        }
        if (!receives() && (count > 0 || timeoutMs > 0 || echo)) {
            throw new IllegalArgumentException(type + " receives nothing: -n, --timeout and --echo do not apply");
        }
        if (echo && (RECEIVE_ONLY.contains(type) || type == SocketType.REQ)) {
            throw new IllegalArgumentException("--echo needs a type that answers what it receives, not " + type);
        }
        if (!subscriptions.isEmpty() && type != SocketType.SUB && type != SocketType.XSUB) {
            throw new IllegalArgumentException("--subscribe applies to SUB and XSUB only");
        }
        if (statsMs != null && statsMs < 0) {
            throw new IllegalArgumentException("--stats must not be negative");
        }
        if (count < 0 || timeoutMs < 0 || heartbeatMs < 0 || lingerMs < 0 || sendTimeoutMs < 0) {
            throw new IllegalArgumentException(
                    "-n, --timeout, --heartbeat, --linger and --send-timeout must not be negative");
        }
        for (String s : subscriptions) {
            lines.parseFrame(s); // a prefix the mode cannot read is a usage error
        }
        if (identity != null && identityHex != null) {
            throw new IllegalArgumentException("give --identity or --identity-hex, not both");
        }
        if (hwm < 1) {
            throw new IllegalArgumentException("--hwm must be at least 1");
        }
        if (type == SocketType.SUB && subscriptions.isEmpty()) {
            log.warn("a SUB socket without --subscribe receives nothing");
        }
    }

    private SocketOptions socketOptions() {
        SocketOptions.Builder b = SocketOptions.builder().hwm(hwm).linger(Duration.ofMillis(lingerMs));
        if (identity != null) {
            b.identity(identity.getBytes(StandardCharsets.UTF_8));
        } else if (identityHex != null) {
            if ((identityHex.length() & 1) != 0 || !identityHex.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
                throw new IllegalArgumentException("--identity-hex takes an even number of hex digits");
            }
            b.identity(HexFormat.of().parseHex(identityHex));
        }
        if (sendTimeoutMs > 0) {
            b.sendTimeout(Duration.ofMillis(sendTimeoutMs));
        }
        if (heartbeatMs > 0) {
            b.heartbeat(HeartbeatPolicy.every(Duration.ofMillis(heartbeatMs)));
        }
        if (type == SocketType.ROUTER) {
            // a full peer makes the line wait (not dropped); a peer not connected yet: see sendWhenPeer
            b.routerMandatory(true);
        }
        libzmqOptions.apply(b);
        return security.apply(b).build();
    }

    private int run(ZmtpContext ctx, SocketOptions options) {
        socket = ctx.socket(type, options);
        if (verbose) {
            printErr("security: " + security.describe());
        }
        socket.monitor(this::event);
        output = new Output(stdout != null ? stdout : new PrintWriter(new BufferedWriter(
                new OutputStreamWriter(new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8))));
        Thread writer = new Thread(output, "zmtp-cat-output");
        writer.setDaemon(true);
        writer.start();
        socket.onMessage(this::received);
        java.util.concurrent.ScheduledExecutorService stats = startStats();
        try {
            return runSocket();
        } finally {
            if (inputThread != null) {
                inputThread.interrupt();
            }
            socket.inLoop(this::dropAwaiting);
            socket.close(Duration.ofMillis(lingerMs)).awaitUninterruptibly(lingerMs + 5000);
            output.close(writer);
            if (stats != null) {
                stats.shutdownNow();
            }
            if (statsMs != null) {
                printStats();
            }
        }
    }

    /**
     * With {@code --stats=MS}, a daemon thread that prints the counters every MS (read off the
     * event loop: {@link ZmtpSocket#metrics()} reads what the loop keeps, and the loop never
     * waits on stderr). Null when there is nothing to print before the exit.
     */
    private java.util.concurrent.ScheduledExecutorService startStats() {
        if (statsMs == null || statsMs <= 0) {
            return null;
        }
        java.util.concurrent.ScheduledExecutorService e = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "zmtp-cat-stats");
            t.setDaemon(true);
            return t;
        });
        e.scheduleAtFixedRate(this::printStats, statsMs, statsMs, TimeUnit.MILLISECONDS);
        return e;
    }

    private void printStats() {
        printErr("stats: " + socket.metrics().toLine());
    }

    /** Binds, connects, subscribes, starts the input and timeout, and waits for the end. */
    private int runSocket() {
        for (String ep : binds) {
            Future<String> f = socket.bind(ep).awaitUninterruptibly();
            badEndpoint(f);
            if (!f.isSuccess()) {
                printErr("cannot bind " + ep + ": " + reason(f.cause()));
                return EXIT_FAILURE;
            }
            printErr("bound " + f.getNow());
        }
        for (String ep : connects) {
            Future<Void> f = socket.connect(ep).awaitUninterruptibly();
            badEndpoint(f);
            if (!f.isSuccess()) {
                printErr("cannot connect to " + ep + ": " + reason(f.cause()));
                return EXIT_FAILURE;
            }
        }
        subscribe();
        if (timeoutMs > 0) {
            socket.inLoop(() -> {
                lastReceived = System.nanoTime();
                socket.schedule(this::checkTimeout, Duration.ofMillis(timeoutMs));
            });
        }
        if (readsInput()) {
            inFlight = new Semaphore(hwm);
            inputThread = new Thread(this::readInput, "zmtp-cat-input");
            inputThread.setDaemon(true);
            inputThread.start();
        }
        return exit.join();
    }

    /** An endpoint that does not parse is a usage error (status 2); a refused bind is not. */
    private void badEndpoint(Future<?> f) {
        if (f.cause() instanceof IllegalArgumentException) {
            throw new ParameterException(spec.commandLine(), f.cause().getMessage());
        }
    }

    private void subscribe() {
        for (String s : subscriptions) {
            socket.subscribe(lines.parseFrame(s)); // SUB and XSUB (checked by validate)
        }
    }

    /**
     * A socket event (on the event loop): printed with --verbose. An endpoint the socket stopped
     * reconnecting to (the peer sent ERROR: refused credentials, incompatible socket types) is
     * reported in any case, and when no endpoint is left the run ends with status 3.
     */
    private void event(SocketEvent e) {
        if (verbose) {
            printErr(e.toString());
        }
        if (e.type() == SocketEvent.Type.HANDSHAKE_SUCCEEDED && !awaitingPeer.isEmpty()) {
            socket.eventLoop().execute(this::sendAwaiting); // after the peer is attached
        }
        if (e.type() == SocketEvent.Type.RECONNECT_STOPPED) {
            printErr("stopped reconnecting to " + e.endpoint() + ": " + e.reason());
            if (++refusedEndpoints == connects.size() && binds.isEmpty()) {
                finish(EXIT_FAILURE);
            }
        }
    }

    private void finish(int code) {
        exit.complete(code);
    }

    private void printErr(String line) {
        synchronized (err) {
            err.println(line);
            err.flush();
        }
    }

    private static String reason(Throwable t) {
        return t.getMessage() != null ? t.getMessage() : t.toString();
    }

    // ------------------------------------------------------------------ receiving (event loop)

    private void received(ZmtpMessage m) {
        if (exit.isDone() || (count > 0 && received >= count)) {
            m.release();
            return;
        }
        received++;
        lastReceived = System.nanoTime();
        if (!quiet) {
            output.add(lines.format(m));
        }
        if (echo) {
            socket.send(m).addListener(f -> {
                if (!f.isSuccess()) {
                    log.warn("echo not sent: {}", reason(f.cause()));
                }
            });
        } else {
            m.release();
        }
        if (type == SocketType.REP && !echo) {
            return; // the count ends the run once the request is answered
        }
        if (count > 0 && received == count) {
            finish(EXIT_OK);
        }
    }

    private void answered() {
        if (count > 0 && ++answered >= count) {
            finish(EXIT_OK);
        }
    }

    private void checkTimeout() {
        if (exit.isDone()) {
            return;
        }
        long limit = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        long idle = System.nanoTime() - lastReceived;
        if (idle >= limit) {
            printErr("timeout: no message within " + timeoutMs + " ms");
            finish(EXIT_TIMEOUT);
        } else {
            socket.schedule(this::checkTimeout, Duration.ofNanos(limit - idle));
        }
    }

    // ------------------------------------------------------------------ sending (input thread)

    private void readInput() {
        try (InputStream in = input) {
            InputLines r = new InputLines(in);
            long number = 0;
            while (!exit.isDone() && r.next()) {
                number++;
                ZmtpMessage m;
                try {
                    m = lines.parse(r.line, 0, r.length);
                } catch (IllegalArgumentException e) {
                    printErr("input line " + number + " not sent: " + e.getMessage());
                    continue;
                }
                if (type == SocketType.ROUTER && m.size() < 2) {
                    m.release();
                    printErr("input line " + number + " not sent: a ROUTER line is the routing id of a peer, "
                            + "then the frames to send it");
                    continue;
                }
                if (lines.mode() == MessageLines.Mode.TEXT && !hexHintGiven && lines.looksLikeHex(m)) {
                    hexHintGiven = true;
                    printErr("note: input frames are sent as typed; 0x... is sent as text (--0x reads it as hex)");
                }
                if (!send(m)) {
                    return; // the socket closed: the run is over
                }
            }
            inFlight.acquire(hwm); // everything read has been taken by a peer (or failed)
            if (type == SocketType.REQ && !sendAllowed()) {
                return; // the socket closed before the reply to the last line
            }
        } catch (InterruptedException e) {
            return; // the run is over
        } catch (IOException e) {
            log.warn("cannot read the input: {}", e.toString());
            finish(EXIT_FAILURE);
            return;
        }
        if (!(receives() && (count > 0 || timeoutMs > 0 || echo))) {
            finish(EXIT_OK);
        }
    }

    /**
     * Sends one line once the socket's state allows it (a REQ has the reply to its last line, or
     * that line failed to go; a REP has a request to answer: the socket type's rule, see
     * {@link ZmtpSocket#whenSendAllowed}) and a slot of {@code --hwm} is free. False if the
     * socket closed meanwhile.
     */
    private boolean send(ZmtpMessage m) throws InterruptedException {
        try {
            if (!sendAllowed()) {
                m.release();
                return false;
            }
            inFlight.acquire();
        } catch (InterruptedException e) {
            m.release();
            throw e;
        }
        Future<Void> sent = type == SocketType.ROUTER ? sendWhenPeer(m) : socket.send(m);
        sent.addListener(f -> {
            inFlight.release();
            if (!f.isSuccess()) {
                printErr("not sent: " + reason(f.cause()));
            }
            if (type == SocketType.REP) {
                answered();
            }
        });
        return true;
    }

    /** Waits until the socket's state allows a send; false if it closed first. */
    private boolean sendAllowed() throws InterruptedException {
        return socket.whenSendAllowed().await().isSuccess();
    }

    /**
     * ROUTER: sends {@code m} once the peer its first frame names is connected. The socket fails
     * a send to an unknown peer at once (mandatory routing), so the line waits here, on the event
     * loop, and is handed to the socket when a handshake brings that peer in, or fails after
     * {@code --send-timeout}. Lines keep their order: one waiting holds back the ones after it,
     * as a send waiting at the high-water mark does.
     */
    private Future<Void> sendWhenPeer(ZmtpMessage m) {
        Promise<Void> p = socket.eventLoop().newPromise();
        AwaitingPeer w = new AwaitingPeer(m, p);
        socket.inLoop(() -> {
            if (stopped) {
                m.release();
                p.tryFailure(new SocketClosedException("socket is closed"));
                return;
            }
            awaitingPeer.add(w);
            if (sendTimeoutMs > 0) {
                w.timer = socket.schedule(() -> peerNeverCame(w), Duration.ofMillis(sendTimeoutMs));
            }
            sendAwaiting();
        });
        return p;
    }

    /** On the loop: hands the socket the waiting lines whose peers are connected, in order. */
    private void sendAwaiting() {
        RouterSocket router = (RouterSocket) socket;
        AwaitingPeer w;
        while (!stopped && (w = awaitingPeer.peek()) != null && router.hasPeer(w.routingId)) {
            awaitingPeer.poll();
            w.cancelTimer();
            Promise<Void> p = w.promise;
            socket.send(w.msg).addListener(f -> {
                if (f.isSuccess()) {
                    p.trySuccess(null);
                } else {
                    p.tryFailure(f.cause());
                }
            });
        }
    }

    private void peerNeverCame(AwaitingPeer w) {
        if (awaitingPeer.remove(w)) {
            String id = lines.formatFrame(w.msg.first());
            w.msg.release();
            w.promise.tryFailure(new SendTimeoutException("no peer with routing id " + id + " connected within "
                    + sendTimeoutMs + " ms"));
            sendAwaiting();
        }
    }

    /** On the loop, at the end: lines still waiting for their peer are dropped. */
    private void dropAwaiting() {
        stopped = true;
        AwaitingPeer w;
        while ((w = awaitingPeer.poll()) != null) {
            w.cancelTimer();
            w.msg.release();
            w.promise.tryFailure(new SocketClosedException("socket is closed"));
        }
    }

    /** A ROUTER line waiting for the peer it names. */
    private static final class AwaitingPeer {
        final ZmtpMessage msg;
        final byte[] routingId;
        final Promise<Void> promise;
        ScheduledFuture<?> timer;

        AwaitingPeer(ZmtpMessage msg, Promise<Void> promise) {
            this.msg = msg;
            this.routingId = msg.frameBytes(0);
            this.promise = promise;
        }

        void cancelTimer() {
            if (timer != null) {
                timer.cancel(false);
            }
        }
    }

    /**
     * Input lines as bytes: a line ends at a newline (\n), or at \r\n, whose \r is dropped; the
     * last line needs no newline. Nothing else is interpreted.
     */
    static final class InputLines {
        private final InputStream in;
        private final byte[] buf = new byte[8192];
        private int pos;
        private int end;
        byte[] line = new byte[256];
        int length;

        InputLines(InputStream in) {
            this.in = in;
        }

        /** Reads the next line into {@code line[0, length)}; false at the end of the input. */
        boolean next() throws IOException {
            length = 0;
            boolean any = false;
            while (true) {
                if (pos == end) {
                    int n = in.read(buf);
                    if (n < 0) {
                        return any;
                    }
                    pos = 0;
                    end = n;
                    continue;
                }
                any = true;
                int i = pos;
                while (i < end && buf[i] != '\n') {
                    i++;
                }
                append(pos, i);
                if (i < end) {
                    pos = i + 1;
                    if (length > 0 && line[length - 1] == '\r') {
                        length--;
                    }
                    return true;
                }
                pos = end;
            }
        }

        private void append(int from, int to) {
            int n = to - from;
            if (length + n > line.length) {
                line = Arrays.copyOf(line, Math.max(line.length * 2, length + n));
            }
            System.arraycopy(buf, from, line, length, n);
            length += n;
        }
    }

    // ------------------------------------------------------------------ printing (output thread)

    /**
     * Prints the lines the socket's handler formats, in a thread of its own so that the event
     * loop never waits for stdout; past {@code --hwm} lines waiting, the socket stops reading
     * from its peers until half of them are printed.
     */
    private final class Output implements Runnable {
        private final Object end = new Object();
        private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
        private final PrintWriter out;
        private final AtomicBoolean resumeAsked = new AtomicBoolean();
        private volatile boolean paused;

        Output(PrintWriter out) {
            this.out = out;
        }

        /** On the event loop. */
        void add(String line) {
            queue.add(line);
            if (!paused && queue.size() >= hwm) {
                paused = true;
                socket.pauseReceiving();
            }
        }

        /** On the event loop. */
        private void resume() {
            resumeAsked.set(false);
            if (paused && queue.size() <= hwm / 2) {
                paused = false;
                socket.resumeReceiving();
            }
        }

        @Override
        public void run() {
            try {
                Object l;
                while ((l = queue.take()) != end) {
                    out.print((String) l);
                    out.print('\n');
                    if (queue.isEmpty()) {
                        out.flush();
                        if (out.checkError()) {
                            log.warn("stdout is closed");
                            CatCommand.this.finish(EXIT_FAILURE);
                            return;
                        }
                    }
                    if (paused && queue.size() <= hwm / 2 && resumeAsked.compareAndSet(false, true)) {
                        socket.inLoop(this::resume);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                out.flush();
            }
        }

        /** Prints what is left and stops (the socket is closed, nothing more comes). */
        void close(Thread writer) {
            queue.add(end);
            try {
                writer.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
