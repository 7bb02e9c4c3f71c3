package io.zmtp.cli;

import io.netty.util.concurrent.Future;
import io.zmtp.socket.SocketEvent;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.SubSocket;
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

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
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
                + "message received is printed as one line the same way. In text mode a frame that is not "
                + "plain text (a generated routing id, binary data) is printed as 0x and hex, and an input "
                + "frame written as 0x and hex is sent as those bytes, so a printed line can be sent back as "
                + "it is. --hex writes and reads every frame as hex.",
            "Sends wait for a connected peer. ROUTER sends a line to the peer its first frame names; REQ "
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
            description = "Routing identity announced to peers, written as a frame is.")
    String identity;

    @Option(names = "--subscribe", paramLabel = "PREFIX",
            description = "SUB, XSUB: receive messages whose first frame starts with PREFIX (repeatable; '' for "
                    + "all), written as a frame is.")
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
            description = "Frame delimiter within a line (default: a tab; \\t also means a tab).")
    String delimiter = "\t";

    @Option(names = "--hex", description = "Read and write every frame as hex digits.")
    boolean hex;

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

    @Mixin
    SecurityOptions security = new SecurityOptions();

    private InputStream input = System.in;

    // State of one run. The counters are used on the socket's event loop only.
    private final CompletableFuture<Integer> exit = new CompletableFuture<>();
    private final Semaphore replies = new Semaphore(0);
    private final Semaphore requests = new Semaphore(0);
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

    /** Where input lines come from (stdin by default; tests give their own). */
    void input(InputStream in) {
        this.input = in;
    }

    @Override
    public Integer call() {
        err = spec.commandLine().getErr();
        SocketOptions options;
        try {
            lines = new MessageLines(delimiter.replace("\\t", "\t"), hex);
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
        if (count < 0 || timeoutMs < 0 || heartbeatMs < 0 || lingerMs < 0) {
            throw new IllegalArgumentException("-n, --timeout, --heartbeat and --linger must not be negative");
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
            b.identity(lines.parseFrame(identity));
        }
        if (heartbeatMs > 0) {
            b.heartbeat(HeartbeatPolicy.every(Duration.ofMillis(heartbeatMs)));
        }
        if (type == SocketType.ROUTER) {
            b.routerMandatory(true); // a line for an unknown peer is reported, not silently dropped
        }
        return security.apply(b).build();
    }

    private int run(ZmtpContext ctx, SocketOptions options) {
        socket = ctx.socket(type, options);
        if (verbose) {
            printErr("security: " + security.describe());
        }
        socket.monitor(this::event);
        output = new Output(spec.commandLine().getOut());
        Thread writer = new Thread(output, "zmtp-cat-output");
        writer.setDaemon(true);
        writer.start();
        socket.onMessage(this::received);
        try {
            return runSocket();
        } finally {
            if (inputThread != null) {
                inputThread.interrupt();
            }
            socket.close(Duration.ofMillis(lingerMs)).awaitUninterruptibly(lingerMs + 5000);
            output.close(writer);
        }
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
            byte[] prefix = lines.parseFrame(s);
            if (type == SocketType.SUB) {
                ((SubSocket) socket).subscribe(prefix);
            } else {
                byte[] m = new byte[prefix.length + 1];
                m[0] = 1;
                System.arraycopy(prefix, 0, m, 1, prefix.length);
                socket.send(ZmtpMessage.of(m));
            }
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
        if (type == SocketType.REQ) {
            replies.release();
        } else if (type == SocketType.REP && !echo) {
            requests.release();
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
        try (BufferedReader r = new BufferedReader(new InputStreamReader(input, StandardCharsets.UTF_8))) {
            String line;
            while (!exit.isDone() && (line = r.readLine()) != null) {
                ZmtpMessage m;
                try {
                    m = lines.parse(line);
                } catch (IllegalArgumentException e) {
                    log.warn("input line not sent: {}", e.getMessage());
                    continue;
                }
                send(m);
            }
            inFlight.acquire(hwm); // everything read has been taken by a peer (or failed)
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

    private void send(ZmtpMessage m) throws InterruptedException {
        try {
            if (type == SocketType.REP) {
                requests.acquire();
            }
            inFlight.acquire();
        } catch (InterruptedException e) {
            m.release();
            throw e;
        }
        socket.send(m).addListener(f -> {
            inFlight.release();
            if (!f.isSuccess()) {
                log.warn("message not sent: {}", reason(f.cause()));
            } else if (type == SocketType.REP) {
                answered();
            }
        });
        if (type == SocketType.REQ) {
            replies.acquire();
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
                    out.println((String) l);
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
