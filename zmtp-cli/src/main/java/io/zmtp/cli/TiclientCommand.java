package io.zmtp.cli;

import io.zmtp.socket.SocketOptions;
import io.zmtp.patterns.kit.Backoff;
import io.zmtp.patterns.majordomo.MajordomoClientSettings;
import io.zmtp.patterns.majordomo.MdpVersion;
import io.zmtp.patterns.titanic.TitanicClient;
import io.zmtp.patterns.titanic.TitanicClientSettings;
import io.zmtp.patterns.titanic.TitanicException;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.Frames;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code zmtp ticlient}: the guide's ticlient. Sends N requests through Titanic
 * ({@code titanic.request}), polls each with {@code titanic.reply} until its reply is there (300
 * PENDING: ask again later), prints it, closes it ({@code titanic.close}). Every request is
 * submitted first, then all are polled in turn. Exits 0 when every reply came within the deadline.
 */
@Command(name = "ticlient", mixinStandardHelpOptions = true,
        description = {"Sends requests through a Titanic server (9/TSP) and prints their replies.",
                "Each is submitted, polled until its reply is stored, printed and closed."},
        sortOptions = false,
        exitCodeListHeading = "Exit status:%n",
        exitCodeList = {"0:every reply came", "1:a request failed (400, or no reply within the deadline)",
                "2:bad options"})
public final class TiclientCommand implements Callable<Integer>, ConnectingCommand {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = {"-e", "--endpoint"}, description = "The broker (default: ${DEFAULT-VALUE}).")
    String connect = "tcp://localhost:5555";

    @Option(names = {"-s", "--service"}, defaultValue = "echo", description = "the service (default: ${DEFAULT-VALUE})")
    String service;

    @Mixin
    CommonOptions.Requests requestCount = new CommonOptions.Requests(1);

    @Option(names = "--deadline", defaultValue = "60s", converter = DurationConverter.class, paramLabel = "DURATION",
            description = "give up on replies not there after this (default: ${DEFAULT-VALUE})")
    Duration deadline;

    @Option(names = "--poll", defaultValue = "100ms", converter = DurationConverter.class, paramLabel = "DURATION",
            description = "pause before asking for replies; doubles after each 300 PENDING up to 5s (default: ${DEFAULT-VALUE})")
    Duration poll;

    @Option(names = "--retry-max", defaultValue = "10s", converter = DurationConverter.class, paramLabel = "DURATION",
            description = "while Titanic or its store fails (500, or no answer), the pause before trying again starts at "
                    + "--poll and doubles up to this (default: ${DEFAULT-VALUE})")
    Duration retryMax;

    @Option(names = "--protocol", defaultValue = "0.1", converter = MdpOptions.VersionConverter.class,
            description = "MDP version, 0.1 or 0.2 (default: ${DEFAULT-VALUE})")
    MdpVersion protocol;

    @Mixin
    CommonOptions.Retries tries = new CommonOptions.Retries(Duration.ofMillis(2500), 3);

    @Mixin
    CommonOptions.Output output;

    @Mixin
    NameLookupOptions names = new NameLookupOptions();

    @Mixin
    ConnectionLossOptions connection = new ConnectionLossOptions();

    @Mixin
    SecurityOptions security;

    @Parameters(arity = "0..*", description = "request body frames (default: \"Hello world\")")
    List<String> body = new ArrayList<>();

    /** The options of the command's sockets: security and connection-loss flags over the pattern's defaults. */
    SocketOptions socketOptions() {
        return connection.apply(security.apply(MajordomoClientSettings.builder().build().socketOptions().toBuilder())).build();
    }

    @Override
    public List<SocketOptions> connectingSocketOptions() {
        return List.of(socketOptions());
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        long n = requestCount.requests();
        if (n < 0) {
            spec.commandLine().getErr().println("ticlient: --requests must not be negative");
            return CommonOptions.USAGE;
        }
        if (requestCount.needsACount("ticlient", "ticlient") != null) {
            spec.commandLine().getErr().println(requestCount.needsACount("ticlient", "ticlient"));
            return CommonOptions.USAGE;
        }
        Frames frames = Frames.ofStrings((body.isEmpty() ? List.of("Hello world") : body).toArray(String[]::new));
        TitanicClientSettings settings;
        try {
            MajordomoClientSettings.Builder md = MajordomoClientSettings.builder().version(protocol)
                    .timeout(tries.timeout()).retries(tries.retries())
                    .socketOptions(socketOptions());
            if (output.verbose()) {
                md.tracer(MdpOptions.tracer(out));
            }
            settings = TitanicClientSettings.builder().majordomo(md.build()).pollDelay(poll)
                    .pollDelayMax(poll.compareTo(Duration.ofSeconds(5)) > 0 ? poll : Duration.ofSeconds(5))
                    .retryDelay(poll).retryDelayMax(retryMax).build();
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println("ticlient: " + e.getMessage());
            return CommonOptions.USAGE;
        }
        boolean quiet = output.quiet();
        long end = System.nanoTime() + deadline.toNanos();
        Outage outage = new Outage(out, quiet, output.verbose(), new Backoff(poll, retryMax));
        ZmtpContext ctx = CommandSupport.clientContext(names);
        int replied = 0;
        try (TitanicClient client = new TitanicClient(ctx, connect, settings)) {
            client.start();
            // 1. every request, each until it is stored (a 500 or no answer: again after a pause)
            Map<String, Integer> waiting = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                String uuid = null;
                while (uuid == null) {
                    try {
                        uuid = client.submit(service, frames);
                        outage.over();
                    } catch (TitanicException e) {
                        if (!e.retryable() || System.nanoTime() - end >= 0) {
                            MdpOptions.line(out, "E: " + e.getMessage() + outage.sofar());
                            return CommonOptions.FAILED;
                        }
                        pause(outage.failed(e));
                    }
                }
                waiting.put(uuid, i);
                if (!quiet) {
                    MdpOptions.line(out, "I: request UUID " + uuid);
                }
            }
            // 2. poll them all in turn until every reply is there, closing each
            Duration delay = poll;
            while (!waiting.isEmpty()) {
                pause(delay);
                boolean progress = false;
                Duration failedPause = null;
                for (Iterator<String> it = waiting.keySet().iterator(); it.hasNext(); ) {
                    String uuid = it.next();
                    Optional<Frames> reply;
                    try {
                        reply = client.poll(uuid);
                    } catch (TitanicException e) {
                        if (!e.retryable()) {
                            MdpOptions.line(out, "E: " + uuid + ": " + e.getMessage());
                            return CommonOptions.FAILED;
                        }
                        failedPause = outage.failed(e);
                        break; // 500 or no answer: the next round, after the outage's pause
                    }
                    outage.over();
                    if (reply.isEmpty()) {
                        continue;
                    }
                    progress = true;
                    if (!quiet) {
                        Frames r = reply.get();
                        // with its uuid: with several requests, or several clients, which reply is whose
                        MdpOptions.line(out, "I: reply to " + uuid + ": "
                                + MdworkerCommand.text(r.isEmpty() ? r : r.dropFirst(r.size() - 1)));
                    }
                    try {
                        client.close(uuid);
                    } catch (TitanicException e) {
                        MdpOptions.line(out, "W: closing " + uuid + " failed: " + e.getMessage());
                    }
                    it.remove();
                    replied++;
                }
                if (waiting.isEmpty()) {
                    break;
                }
                if (System.nanoTime() - end >= 0) {
                    MdpOptions.line(out, "E: " + waiting.size() + " repl" + (waiting.size() == 1 ? "y" : "ies")
                            + " not there after " + deadline.toMillis() + " ms" + outage.sofar());
                    return CommonOptions.FAILED;
                }
                if (failedPause != null) {
                    delay = failedPause;
                    continue;
                }
                if (!quiet && !progress) {
                    MdpOptions.line(out, "I: no reply yet, trying again...");
                }
                delay = progress ? poll : min(delay.multipliedBy(2), Duration.ofSeconds(5));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CommonOptions.FAILED;
        } finally {
            ctx.close(Duration.ofSeconds(2));
        }
        if (!quiet && n > 1) {
            MdpOptions.line(out, "I: " + replied + " repl" + (replied == 1 ? "y" : "ies") + " received");
        }
        return CommonOptions.OK;
    }

    /**
     * Failures of Titanic or its store (500, no answer) one after another: the pause before the
     * next try, doubling from --poll up to --retry-max, and one line when they begin and one when
     * they end (with -v a line per try), not one per failure.
     */
    static final class Outage {
        private final PrintWriter out;
        private final boolean quiet;
        private final boolean verbose;
        private final Backoff backoff;
        private int failures;
        private long since;

        Outage(PrintWriter out, boolean quiet, boolean verbose, Backoff backoff) {
            this.out = out;
            this.quiet = quiet;
            this.verbose = verbose;
            this.backoff = backoff;
        }

        /** A failed try: the pause before the next one. */
        Duration failed(TitanicException e) {
            Duration pause = backoff.next();
            if (failures++ == 0) {
                since = System.nanoTime();
                if (!quiet) {
                    MdpOptions.line(out, "W: " + e.getMessage() + "; trying again in " + pause.toMillis()
                            + " ms, the pause doubling up to " + backoff.max().toMillis() + " ms");
                }
            } else if (verbose) {
                MdpOptions.line(out, "I: try " + (failures + 1) + " in " + pause.toMillis() + " ms (" + e.getMessage() + ")");
            }
            return pause;
        }

        /** A try succeeded: the outage, if any, is over. */
        void over() {
            if (failures > 0 && !quiet) {
                MdpOptions.line(out, "I: Titanic answers again, after " + failures + " failed tr"
                        + (failures == 1 ? "y" : "ies") + " in " + (System.nanoTime() - since) / 1_000_000 + " ms");
            }
            failures = 0;
            backoff.reset();
        }

        /** For a final error: the failed tries so far, if any. */
        String sofar() {
            return failures == 0 ? "" : " (" + failures + " failed tr" + (failures == 1 ? "y" : "ies") + " since "
                    + (System.nanoTime() - since) / 1_000_000 + " ms ago)";
        }
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /** A pause of the command line (a user thread) between rounds of polling. */
    private static void pause(Duration d) throws InterruptedException {
        Thread.sleep(Math.max(1, d.toMillis()));
    }
}
