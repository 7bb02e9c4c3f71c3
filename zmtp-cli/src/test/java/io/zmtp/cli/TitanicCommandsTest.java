package io.zmtp.cli;

import io.zmtp.cli.MajordomoCommandsTest.Result;
import io.zmtp.cli.MajordomoCommandsTest.Running;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code zmtp titanic} and {@code zmtp ticlient} in-process with mdbroker and mdworker, output captured. */
class TitanicCommandsTest {
    final List<Running> running = new ArrayList<>();
    @TempDir
    Path dir;

    @AfterEach
    void stopAll() throws InterruptedException {
        for (int i = running.size() - 1; i >= 0; i--) {
            running.get(i).stop();
        }
    }

    Running start(String... args) {
        Running r = new Running(args);
        running.add(r);
        return r;
    }

    @Test
    void ticlientGetsItsRepliesThroughTitanicEvenWhenTheWorkerComesLate() throws InterruptedException {
        Running broker = start("mdbroker", "--bind", "tcp://127.0.0.1:0");
        String endpoint = broker.out.await("is active at (tcp://\\S+)").group(1);
        Path store = dir.resolve("store");
        Running titanic = start("titanic", "-e", endpoint, "--store", store.toString(), "--retry-interval", "100ms");
        try {
            titanic.out.await("titanic serving through " + endpoint.replace(".", "\\.") + ", 0 stored request\\(s\\) "
                    + "to dispatch; store: SQLite in " + java.util.regex.Pattern.quote(store.toAbsolutePath().toString()) + "$");
        } catch (AssertionError e) {
            throw new AssertionError("titanic said: " + titanic.err.text(), e);
        }
        broker.out.await("WORKER_READY .* service=titanic\\.close");
        broker.out.await("WORKER_READY .* service=titanic\\.request");
        broker.out.await("WORKER_READY .* service=titanic\\.reply");
        assertTrue(Files.isRegularFile(store.resolve("titanic.db")), "the store is in --store");

        // no echo worker yet: the client waits; then one comes and every reply arrives
        Running client = start("ticlient", "-e", endpoint, "-n", "3", "--poll", "50ms", "--deadline", "20s", "hi");
        client.out.await("I: request UUID [0-9a-f]{32}");
        titanic.out.await("service 'echo' has no workers");
        start("mdworker", "--connect", endpoint, "-q");
        client.out.await("I: 3 replies received");
        client.thread.join(10_000);
        assertEquals(0, client.exit.get(), client.out.text());
        java.util.Set<String> submitted = new java.util.HashSet<>();
        java.util.Set<String> answered = new java.util.HashSet<>();
        for (String l : client.out.lines()) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("^I: request UUID ([0-9a-f]{32})$").matcher(l);
            if (m.find()) {
                submitted.add(m.group(1));
            }
            m = java.util.regex.Pattern.compile("^I: reply to ([0-9a-f]{32}): \\[hi\\]$").matcher(l);
            if (m.find()) {
                answered.add(m.group(1));
            }
        }
        assertEquals(3, submitted.size(), client.out.text());
        assertEquals(submitted, answered, "each reply printed with its request's uuid: " + client.out.text());

        Result one = new Result("ticlient", "-e", endpoint, "-q");
        assertEquals(0, one.exit, one.out.text());
        assertEquals("", one.out.text().trim(), "quiet");

        assertEquals(0, titanic.stop());
        titanic.out.await("I: titanic stopped after 4 request\\(s\\) stored, 4 replies stored");
    }

    @Test
    void helpListsTheExitStatusesAndBadOptionsExit2() {
        Result help = new Result("ticlient", "--help");
        assertEquals(0, help.exit);
        assertTrue(help.out.text().matches("(?s).*Exit status:\\s+0 +every reply came.*"), help.out.text());
        Result thelp = new Result("titanic", "--help");
        assertTrue(thelp.out.text().contains("--store=DIR"), thelp.out.text());
        assertTrue(thelp.out.text().matches("(?s).*1 +the store cannot be opened.*"), thelp.out.text());
        Result untilStopped = new Result("ticlient", "-n", "0");
        assertEquals(2, untilStopped.exit);
        assertTrue(untilStopped.err.text().contains("sends every request before it reads a reply"), untilStopped.err.text());
        assertEquals(2, new Result("titanic", "--request-workers", "0", "--store", dir.toString()).exit);
    }

    @Test
    void aPostgresqlStoreIsAUrlAndItsPasswordIsNeverPrinted() {
        Result fsync = new Result("titanic", "--store", "postgresql://ti:hunter2@127.0.0.1:5432/titanic", "--fsync");
        assertEquals(2, fsync.exit, fsync.err.text());
        assertTrue(fsync.err.text().contains("--fsync applies to the SQLite store"), fsync.err.text());
        Result lease = new Result("titanic", "--store", "postgresql://127.0.0.1/titanic", "--claim-lease", "100ms");
        assertEquals(2, lease.exit, lease.err.text());
        assertTrue(lease.err.text().contains("claimLease must be at least 1 s"), lease.err.text());
        Result down = new Result("titanic", "--store", "postgresql://ti:hunter2@127.0.0.1:"
                + io.zmtp.testing.FreePorts.next() + "/titanic?connectTimeout=2");
        assertEquals(1, down.exit, down.err.text());
        assertTrue(down.err.text().contains("titanic: cannot open the Titanic store at jdbc:postgresql://127.0.0.1:"),
                down.err.text());
        for (Result r : java.util.List.of(fsync, lease, down)) {
            assertTrue(!r.err.text().contains("hunter2") && !r.out.text().contains("hunter2"), "the password is shown");
        }
    }

    @Test
    void aTiclientBacksOffWhileTitanicIsDownAndSaysSoOnceEachWay() throws InterruptedException {
        Running broker = start("mdbroker", "--bind", "tcp://127.0.0.1:0");
        String endpoint = broker.out.await("is active at (tcp://\\S+)").group(1);
        // no Titanic yet: every titanic.request times out
        Running client = start("ticlient", "-e", endpoint, "--timeout", "100ms", "--retries", "1", "--poll", "50ms",
                "--retry-max", "200ms", "--deadline", "30s", "-v", "hi");
        client.out.await("^W: titanic\\.request: .*; trying again in 50 ms, the pause doubling up to 200 ms$");
        client.out.await("^I: try 3 in 100 ms \\(");  // the first pause is in the W: line
        client.out.await("^I: try 4 in 200 ms \\(");
        client.out.await("^I: try 5 in 200 ms \\(");  // the cap
        start("titanic", "-e", endpoint, "--store", dir.resolve("store").toString(), "-q");
        start("mdworker", "--connect", endpoint, "-q");
        client.out.await("^I: Titanic answers again, after \\d+ failed tries in \\d+ ms$");
        client.thread.join(20_000);
        assertEquals(0, client.exit.get(), client.out.text());
        List<String> warnings = client.out.lines().stream().filter(l -> l.startsWith("W: ")).toList();
        assertEquals(1, warnings.size(), "one line when the failures begin: " + warnings);
        List<String> tries = client.out.lines().stream().filter(l -> l.startsWith("I: try ")).toList();
        for (int i = 1; i < tries.size(); i++) {
            assertTrue(tries.get(i).startsWith("I: try " + (i + 3) + " in 200 ms"), "capped at --retry-max: " + tries);
        }
    }

    @Test
    void aTiclientWithoutTitanicFailsWithinItsDeadline() {
        Result r = new Result("ticlient", "-e", "tcp://127.0.0.1:1", "--timeout", "50ms", "--retries", "1",
                "--deadline", "300ms", "--poll", "50ms");
        assertEquals(1, r.exit, r.out.text());
        assertTrue(r.out.text().contains("E: titanic.request"), r.out.text());
    }
}
