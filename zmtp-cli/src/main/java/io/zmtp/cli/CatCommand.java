package io.zmtp.cli;

import io.netty.util.concurrent.Future;
import io.zmtp.patterns.kit.ReconnectStoppedException;
import io.zmtp.socket.DishSocket;
import io.zmtp.socket.PeerSocket;
import io.zmtp.socket.RouterSocket;
import io.zmtp.socket.SocketEvent;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.socket.ZmtpSocket;
import io.zmtp.transport.Endpoint;
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
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@code zmtp cat}: one ZeroMQ socket between stdin and stdout, as zmq_cat. Each input line is
 * sent as one message and each message received is printed as one line; {@link MessageLines}
 * says how frames are written ({@link SingleFrameLines} how the thread-safe types' lines carry a
 * routing id or a group). Everything a socket does comes from the socket API: this class
 * parses the options, opens the socket, counts what it receives and decides the exit status.
 *
 * <p>Three threads: the caller's waits for the end; {@link CatInput} reads lines and hands them
 * to the socket (a ROUTER's through {@link RouterLines}, which wait for the peer they name);
 * {@link CatOutput} prints what the socket's handler (on the event loop) formatted, and reading
 * from peers pauses while stdout lags behind.
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
                + "(or with --echo). PUB drops lines no connected subscriber wants. SUB, PULL, DISH and GATHER "
                + "ignore stdin; PUB, PUSH, RADIO and SCATTER exit once stdin ends and its lines are sent. Others "
                + "exit when stdin ends, unless -n, --timeout or --echo keep them receiving.",
            "The thread-safe types (SERVER, CLIENT, RADIO, DISH, SCATTER, GATHER, PEER, CHANNEL) send and "
                + "receive one frame per line. SERVER and PEER print each message led by the routing id of its "
                + "peer, in decimal, and send a line 'ID<TAB>text' to the peer ID; a PEER's -c reports "
                + "'peer ID <endpoint>' on stderr. DISH prints 'GROUP<TAB>text'; RADIO sends a line "
                + "'GROUP<TAB>text' to GROUP, or every line to --group GROUP."},
        footer = {"", "Security: PLAIN (--plain-user and --plain-password for a client; --plain-server with "
                + "--plain-account for a server) or CURVE (--curve-server-key for a client; --curve-server with "
                + "--curve-secret-key or --curve-cert for a server). 'zmtp keygen' makes CURVE keys.",
            "", "Exit status: 0 done; 1 --timeout passed with no message; 2 usage error; "
                + "3 the socket or the streams failed (bind refused, stdout closed, every peer refused us)."})
public final class CatCommand implements Callable<Integer>, ConnectingCommand {
    private static final Logger log = LoggerFactory.getLogger(CatCommand.class);

    static final int EXIT_OK = 0;
    static final int EXIT_TIMEOUT = 1;
    static final int EXIT_USAGE = 2;
    static final int EXIT_FAILURE = 3;

    private static final Set<SocketType> RECEIVE_ONLY = EnumSet.of(SocketType.SUB, SocketType.PULL, SocketType.DISH,
            SocketType.GATHER);

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

    @Option(names = "--join", paramLabel = "GROUP",
            description = "DISH: receive the messages of GROUP (repeatable; 1 to 255 bytes of UTF-8 text).")
    List<String> joins = new ArrayList<>();

    @Option(names = "--group", paramLabel = "GROUP",
            description = "RADIO: send every line to GROUP (1 to 255 bytes of UTF-8 text); without it each line "
                    + "is the group, the delimiter, then the text.")
    String group;

    @Option(names = "--echo",
            description = "Send every message received back: ROUTER, SERVER and PEER to the peer it came from, REP "
                    + "as the reply.")
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

    @Mixin
    ConnectionLossOptions connection = new ConnectionLossOptions();

    @Option(names = "--stats", arity = "0..1", fallbackValue = "0", paramLabel = "MS", preprocessor = OptionalValue.class,
            description = "Print the socket's counters on stderr as a line starting 'stats:' at exit, and "
                    + "every MS milliseconds if given: messages and bytes in and out, queued messages, "
                    + "high-water-mark drops, peers, handshakes, reconnects, handshake failures by kind.")
    Long statsMs;

    @Mixin
    NameLookupOptions names = new NameLookupOptions();

    @Mixin
    SecurityOptions security = new SecurityOptions();

    @Mixin
    LibzmqSocketOptions libzmqOptions = new LibzmqSocketOptions();

    @Mixin
    BoundLimits limits = new BoundLimits();

    private InputStream input = System.in;
    private PrintWriter stdout;

    // State of one run. The counters are used on the socket's event loop only.
    private final CompletableFuture<Integer> exit = new CompletableFuture<>();
    private MessageLines lines;
    private LineFormat format;
    private PrintWriter err;
    private ZmtpSocket socket;
    private CatOutput output;
    private RouterLines routerLines;
    private Thread inputThread;
    private long received;
    private long answered;
    private long lastReceived;
    private int refusedEndpoints;

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
            format = type.isSingleFrame() ? new SingleFrameLines(lines, type, group) : lines;
            options = socketOptions();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        ZmtpContext ctx = names.apply(ZmtpContext.create(1));
        try {
            return run(ctx, options);
        } finally {
            ctx.close(Duration.ofSeconds(5));
        }
    }

    /**
     * Whether the socket receives messages. A RADIO's peers send it only JOIN and LEAVE, though
     * {@link SocketType#deliversMessages()} counts it among the types that deliver.
     */
    private boolean receives() {
        return type.deliversMessages() && type != SocketType.RADIO;
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
        if (!joins.isEmpty() && type != SocketType.DISH) {
            throw new IllegalArgumentException("--join applies to DISH only");
        }
        if (group != null && type != SocketType.RADIO) {
            throw new IllegalArgumentException("--group applies to RADIO only");
        }
        if (group != null) {
            SingleFrameLines.group(group);
        }
        for (String g : joins) {
            SingleFrameLines.group(g);
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
        if (type == SocketType.DISH && joins.isEmpty()) {
            log.warn("a DISH socket without --join receives nothing");
        }
    }

    @Override
    public List<SocketOptions> connectingSocketOptions() {
        return List.of(socketOptions());
    }

    SocketOptions socketOptions() {
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
        connection.apply(b);
        libzmqOptions.apply(b);
        limits.apply(b); // what the library applies to bound endpoints (-b)
        return security.apply(b).build();
    }

    private int run(ZmtpContext ctx, SocketOptions options) {
        socket = ctx.socket(type, options);
        if (verbose) {
            printErr("security: " + security.describe());
        }
        if (type == SocketType.ROUTER) {
            routerLines = new RouterLines((RouterSocket) socket, sendTimeoutMs, lines::formatFrame);
        }
        socket.monitor(this::event);
        output = new CatOutput(stdout != null ? stdout : new PrintWriter(new BufferedWriter(
                new OutputStreamWriter(new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8))),
                hwm, socket, () -> finish(EXIT_FAILURE));
        socket.onMessage(this::received);
        java.util.concurrent.ScheduledExecutorService stats = startStats();
        try {
            return runSocket();
        } finally {
            if (inputThread != null) {
                inputThread.interrupt();
            }
            if (routerLines != null) {
                socket.inLoop(routerLines::dropAll);
            }
            socket.close(Duration.ofMillis(lingerMs)).awaitUninterruptibly(lingerMs + 5000);
            output.close();
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
                printErr("cannot bind " + ep + ": " + CommandSupport.reason(f.cause()));
                return EXIT_FAILURE;
            }
            printErr("bound " + f.getNow());
        }
        for (String ep : connects) {
            if (type == SocketType.PEER) {
                connectPeer(ep);
                continue;
            }
            Future<Void> f = socket.connect(ep).awaitUninterruptibly();
            badEndpoint(f);
            if (!f.isSuccess()) {
                printErr("cannot connect to " + ep + ": " + CommandSupport.reason(f.cause()));
                return EXIT_FAILURE;
            }
        }
        subscribe();
        for (String g : new LinkedHashSet<>(joins)) { // joining a group twice fails, as libzmq's zmq_join
            Future<Void> f = ((DishSocket) socket).join(g).awaitUninterruptibly(); // DISH (checked by validate)
            if (!f.isSuccess()) {
                printErr("cannot join " + g + ": " + CommandSupport.reason(f.cause()));
                return EXIT_FAILURE;
            }
        }
        if (timeoutMs > 0) {
            socket.inLoop(() -> {
                lastReceived = System.nanoTime();
                socket.schedule(this::checkTimeout, Duration.ofMillis(timeoutMs));
            });
        }
        if (readsInput()) {
            inputThread = new Thread(new CatInput(new InputRun(), input, lines, format, type, socket, routerLines, hwm), "zmtp-cat-input");
            inputThread.setDaemon(true);
            inputThread.start();
        }
        return exit.join();
    }

    /**
     * A PEER's connect: the user learns the routing id of the endpoint's peer, to send to it, on
     * stderr as {@code peer ID ENDPOINT}. The id comes once the first handshake through the
     * endpoint is done, and the run does not wait for it (the peer may come later, or never).
     * A refused endpoint ends the run as any connect's does ({@link #event}).
     */
    private void connectPeer(String ep) {
        try {
            Endpoint.parse(ep);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        ((PeerSocket) socket).connectPeer(ep).addListener(f -> {
            if (f.isSuccess()) {
                printErr("peer " + Integer.toUnsignedString((Integer) f.getNow()) + " " + ep);
            } else if (!exit.isDone()) {
                printErr("no routing id for " + ep + ": " + CommandSupport.reason(f.cause()));
            }
        });
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
     * reconnecting to (the peer sent ERROR: refused credentials, incompatible socket types; or a
     * --reconnect-stop case) is reported in any case, and when no endpoint is left the run ends
     * with status 3.
     */
    private void event(SocketEvent e) {
        if (verbose) {
            printErr(e.toString());
        }
        if (e.type() == SocketEvent.Type.HANDSHAKE_SUCCEEDED && routerLines != null) {
            routerLines.peerAttached();
        }
        if (e.type() == SocketEvent.Type.RECONNECT_STOPPED) {
            printErr(ReconnectStoppedException.message(e.endpoint(), e.reason()));
            if (++refusedEndpoints == connects.size() && binds.isEmpty()) {
                finish(EXIT_FAILURE);
            }
        }
    }

    /** Ends the run with {@code code} (the first call wins); any thread. */
    void finish(int code) {
        exit.complete(code);
    }

    /** Whether the run has ended. */
    boolean over() {
        return exit.isDone();
    }

    /**
     * The input ended and every line was taken (or failed): the run ends, unless it goes on
     * receiving (-n, --timeout, --echo).
     */
    void inputEnded() {
        if (!(receives() && (count > 0 || timeoutMs > 0 || echo))) {
            finish(EXIT_OK);
        }
    }

    void printErr(String line) {
        synchronized (err) {
            err.println(line);
            err.flush();
        }
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
            output.add(format.format(m));
        }
        if (echo) {
            echo(m);
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

    /**
     * Sends {@code m} back, on the loop that received it: taken at once unless the peer is at its
     * high-water mark, when it waits as any send does. The common case makes no future and no
     * listener, a measurable part of an echo server's CPU with thousands of peers.
     */
    private void echo(ZmtpMessage m) {
        boolean taken;
        try {
            taken = socket.trySend(m);
        } catch (RuntimeException refused) { // the type's state forbids it now: still ours
            m.release();
            log.warn("echo not sent: {}", CommandSupport.reason(refused));
            return;
        }
        if (!taken) {
            socket.send(m).addListener(f -> {
                if (!f.isSuccess()) {
                    log.warn("echo not sent: {}", CommandSupport.reason(f.cause()));
                }
            });
        }
    }

    /** A REP's answer went out (its listener, any thread, hence the loop). */
    void answered() {
        socket.inLoop(this::countAnswer);
    }

    private void countAnswer() {
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

    /** The run as the input thread sees it. */
    private final class InputRun implements CatInput.Run {
        @Override
        public boolean over() {
            return CatCommand.this.over();
        }

        @Override
        public void printErr(String line) {
            CatCommand.this.printErr(line);
        }

        @Override
        public void inputFailed() {
            finish(EXIT_FAILURE);
        }

        @Override
        public void inputEnded() {
            CatCommand.this.inputEnded();
        }

        @Override
        public void answered() {
            CatCommand.this.answered();
        }
    }
}
