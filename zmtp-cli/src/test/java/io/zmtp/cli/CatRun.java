package io.zmtp.cli;

import picocli.CommandLine;

import java.io.InputStream;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One {@code zmtp cat} run in this JVM, through {@link ZmtpCli#commandLine()}: its stdin is fed by
 * the test, its stdout and stderr lines are collected, and its exit status awaited.
 */
final class CatRun implements AutoCloseable {
    static final long T = 10_000;

    final Stdin stdin = new Stdin();
    final Lines out = new Lines();
    final Lines err = new Lines();
    private final CompletableFuture<Integer> exit = new CompletableFuture<>();

    private CatRun(String... args) {
        CommandLine cl = ZmtpCli.commandLine();
        PrintWriter stdout = new PrintWriter(out, true);
        cl.setOut(stdout);
        cl.setErr(new PrintWriter(err, true));
        CatCommand cat = (CatCommand) cl.getSubcommands().get("cat").getCommand();
        cat.input(stdin);
        cat.output(stdout);
        String[] all = new String[args.length + 1];
        all[0] = "cat";
        System.arraycopy(args, 0, all, 1, args.length);
        Thread t = new Thread(() -> {
            try {
                exit.complete(cl.execute(all));
            } catch (Throwable e) {
                exit.completeExceptionally(e);
            }
        }, "cat-run");
        t.setDaemon(true);
        t.start();
    }

    /** Starts {@code zmtp cat args...} with stdin open. */
    static CatRun start(String... args) {
        return new CatRun(args);
    }

    /** Writes to the run's stdin. */
    CatRun input(String text) {
        stdin.write(text);
        return this;
    }

    /** Writes bytes to the run's stdin. */
    CatRun input(byte[] bytes) {
        stdin.write(bytes);
        return this;
    }

    /** Ends the run's stdin. */
    CatRun endInput() {
        stdin.close();
        return this;
    }

    /** The endpoint of the next "bound ..." line on stderr. */
    String bound() {
        while (true) {
            String l = err.next();
            if (l.startsWith("bound ")) {
                return l.substring("bound ".length());
            }
        }
    }

    /** The next stdout line; fails the test when none comes in time. */
    String line() {
        return out.next();
    }

    /** The exit status; fails the test when the run does not end in time. */
    int exitCode() {
        try {
            return exit.get(T, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("cat did not exit within " + T + " ms; stderr: " + err.drain());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    boolean exited() {
        return exit.isDone();
    }

    @Override
    public void close() {
        stdin.close();
        if (!exit.isDone()) {
            exitCode(); // every test bounds its runs; one still going is a failure
        }
    }

    /** A stdin the test writes to, open until closed. */
    static final class Stdin extends InputStream {
        private static final byte[] EOF = new byte[0];
        private final BlockingQueue<byte[]> chunks = new LinkedBlockingQueue<>();
        private byte[] current;
        private int pos;
        private boolean ended;

        void write(String s) {
            write(s.getBytes(StandardCharsets.UTF_8));
        }

        void write(byte[] bytes) {
            chunks.add(bytes.clone());
        }

        @Override
        public void close() {
            chunks.add(EOF);
        }

        @Override
        public int read() {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (len == 0) {
                return 0;
            }
            while (current == null || pos == current.length) {
                if (ended) {
                    return -1;
                }
                try {
                    current = chunks.take();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return -1;
                }
                pos = 0;
                if (current == EOF) {
                    ended = true;
                    return -1;
                }
            }
            int n = Math.min(len, current.length - pos);
            System.arraycopy(current, pos, b, off, n);
            pos += n;
            return n;
        }
    }

    /** A writer that hands over each completed line. */
    static final class Lines extends Writer {
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final StringBuilder partial = new StringBuilder();

        @Override
        public synchronized void write(char[] cbuf, int off, int len) {
            for (int i = off; i < off + len; i++) {
                char c = cbuf[i];
                if (c == '\n') {
                    lines.add(partial.toString());
                    partial.setLength(0);
                } else if (c != '\r') {
                    partial.append(c);
                }
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }

        /** The next line; fails the test when none comes in time. */
        String next() {
            try {
                String l = lines.poll(T, TimeUnit.MILLISECONDS);
                if (l == null) {
                    throw new AssertionError("no line within " + T + " ms");
                }
                return l;
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }

        /** The lines written so far and not taken. */
        List<String> drain() {
            List<String> l = new ArrayList<>();
            lines.drainTo(l);
            return l;
        }
    }
}
