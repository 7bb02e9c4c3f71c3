package io.zmtp.cli;

import io.zmtp.socket.BlockingSocket;
import io.zmtp.socket.SocketOptions;
import io.zmtp.socket.ZmtpContext;
import io.zmtp.wire.SocketType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code zmtp cat --stats}: the socket's counters on stderr, periodically and at exit. */
class CatStatsTest {
    ZmtpContext ctx;
    final List<CatRun> runs = new ArrayList<>();

    @BeforeEach
    void start() {
        ctx = ZmtpContext.create(1);
    }

    @AfterEach
    void stop() {
        runs.forEach(CatRun::close);
        ctx.close(Duration.ofSeconds(5));
    }

    CatRun cat(String... args) {
        CatRun r = CatRun.start(args);
        runs.add(r);
        return r;
    }

    private static String statsLine(CatRun run) {
        while (true) {
            String l = run.err.next();   // fails the test when no line comes in time
            if (l.startsWith("stats: ")) {
                return l;
            }
        }
    }

    @Test
    void statsAtExitCountWhatWasReceived() {
        CatRun pull = cat("-t", "PULL", "-b", "tcp://127.0.0.1:0", "-n", "2", "-q", "--stats");
        String ep = pull.bound();
        BlockingSocket push = ctx.blocking(SocketType.PUSH, SocketOptions.builder().linger(Duration.ZERO).build());
        push.connect(ep);
        push.send("abc");
        push.send("defgh");
        assertEquals(0, pull.exitCode());
        String line = statsLine(pull);
        assertTrue(line.startsWith("stats: in=2/8B out=0/0B "), line);
        assertTrue(line.contains(" handshakes=1 "), line);
    }

    @Test
    void statsWithAnIntervalArePrintedWhileTheCatRuns() {
        CatRun push = cat("-t", "PUSH", "-c", "tcp://127.0.0.1:1", "--stats=50");
        String first = statsLine(push);   // printed before any exit: the input is still open
        assertTrue(first.contains(" connect-failures="), first);
        assertTrue(!push.exited(), "still running");
        push.endInput();
        assertEquals(0, push.exitCode());
    }

    @Test
    void aNegativeIntervalIsAUsageError() {
        CatRun bad = cat("-t", "PULL", "-b", "tcp://127.0.0.1:0", "--stats=-1");
        assertEquals(CatCommand.EXIT_USAGE, bad.exitCode());
    }
}
