package io.zmtp.interop;

import io.zmtp.patterns.majordomo.MajordomoBroker;
import io.zmtp.patterns.majordomo.MajordomoBrokerSettings;
import io.zmtp.patterns.majordomo.MajordomoHandler;
import io.zmtp.patterns.majordomo.MajordomoWorker;
import io.zmtp.socket.ZmtpContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code zmtp mdclient} as a fresh process: its first request, and what it prints of a failover.
 *
 * <p>Why a fresh {@code zmtp mdclient} once lost its first try on a healthy broker (its connection
 * opened, then closed at the try's 1 s timeout with nothing sent): the JVM's first connection
 * loaded and initialised a few hundred classes (Netty's channel and buffer pools, their Flight
 * Recorder events, the codec), 0.2 to 0.3 s on an idle machine and several times that on a busy
 * one, inside the first request's timeout. The client commands now warm their context up
 * ({@code ZmtpContext.warmUp}) before they start the clock. Seen through the JVM's class-load log,
 * interleaved with the command's verbose trace on stdout: with the warm-up, no class of the
 * connection path is loaded between sending the first request and its reply; without it (the
 * control), hundreds are.
 */
class MdclientProcessTest {
    ZmtpContext ctx;
    MajordomoBroker broker;
    MajordomoWorker worker;
    final List<PeerScript> processes = new ArrayList<>();

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(1);
        broker = new MajordomoBroker(ctx, MajordomoBrokerSettings.builder().endpoints("tcp://127.0.0.1:0").build());
        broker.start().toCompletableFuture().join();
        worker = new MajordomoWorker(ctx, broker.endpoint(), "echo", MajordomoHandler.echo());
        worker.start().toCompletableFuture().join();
    }

    @AfterEach
    void stop() {
        processes.forEach(PeerScript::close);
        worker.close();
        broker.close();
        ctx.close();
    }

    /** The classes a fresh mdclient loads while its first request is out. */
    List<String> loadedDuringTheFirstRequest(boolean warmUp) {
        Path jar = PeerScript.ZMTP_JAR;
        assertTrue(Files.isRegularFile(jar), jar + " is missing: build it with mvn package (or verify)");
        PeerScript client = PeerScript.startProgram("mdclient", List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Dzmtp.warmUp=" + warmUp,
                "-Xlog:class+load:stdout", "-jar", jar.toString(),
                "mdclient", "-e", broker.endpoint(), "-n", "1", "-t", "30s", "-v"));
        processes.add(client);
        assertEquals(0, client.awaitExit(), () -> String.join("\n", client.lines()));
        List<String> loaded = new ArrayList<>();
        boolean inFlight = false;
        for (String line : client.lines()) {
            if (line.startsWith("I: send request")) {
                inFlight = true;
            } else if (line.startsWith("I: received reply")) {
                break;
            } else if (inFlight && line.contains("[class,load]")) {
                loaded.add(line.replaceFirst(".*\\[class,load\\] ", "").replaceFirst(" source:.*", ""));
            }
        }
        return loaded;
    }

    static List<String> connectionPath(List<String> classes) {
        return classes.stream().filter(c -> c.startsWith("io.netty.") || c.startsWith("jdk.jfr.")
                || c.startsWith("io.zmtp.wire.") || c.startsWith("io.zmtp.socket.")
                || c.startsWith("io.zmtp.transport.")).toList();
    }

    /**
     * A failover is printed once, as the command's event line: the client no longer also logs it
     * as a WARN when its application (here the command) listens to its events.
     */
    @Test
    void aFailoverIsPrintedOnce() throws Exception {
        String nobody = "tcp://127.0.0.1:" + io.zmtp.testing.FreePorts.next();
        PeerScript client = PeerScript.startProgram("mdclient", zmtp("mdclient", "-e", nobody, "-e", broker.endpoint(),
                "-n", "1", "-t", "300ms", "--settle", "100ms"), true);
        processes.add(client);
        assertEquals(0, client.awaitExit(), () -> String.join("\n", client.lines()));
        assertEquals(1, client.count(l -> l.startsWith("I: RETRYING")), () -> String.join("\n", client.lines()));
        assertEquals(0, client.count(l -> l.contains("WARN")), () -> String.join("\n", client.lines()));
    }

    /** {@code -n 0}: requests one after the other until the process is stopped. */
    @Test
    void minusNZeroSendsUntilStopped() {
        PeerScript client = PeerScript.startProgram("mdclient", zmtp("mdclient", "-e", broker.endpoint(), "-n", "0", "-v"));
        processes.add(client);
        client.awaitCount("I: received reply", 50, 30_000);
        client.signal("TERM");
        assertEquals(143, client.awaitExit(), "stopped by SIGTERM: " + client.lines().size() + " lines");
    }

    @Test
    void aWarmedUpClientLoadsNothingOfTheConnectionPathDuringItsFirstRequest() {
        List<String> loaded = loadedDuringTheFirstRequest(true);
        assertEquals(List.of(), connectionPath(loaded), "loaded while the first request was out");
    }

    @Test
    void withoutTheWarmUpTheFirstRequestPaysForTheFirstConnection() {
        List<String> path = connectionPath(loadedDuringTheFirstRequest(false));
        assertTrue(path.size() > 100, "the control: classes of the connection path loaded while the first "
                + "request was out: " + path.size());
        assertTrue(path.stream().anyMatch(c -> c.startsWith("io.netty.channel.")), path.toString());
    }

    /** {@code java -jar zmtp.jar ARGS...} as the launcher runs it. */
    static List<String> zmtp(String... args) {
        List<String> cmd = PeerScript.zmtpJava();
        cmd.addAll(List.of(args));
        return cmd;
    }
}
