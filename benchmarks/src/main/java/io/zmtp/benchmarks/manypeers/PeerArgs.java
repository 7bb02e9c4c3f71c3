package io.zmtp.benchmarks.manypeers;

import java.util.concurrent.locks.LockSupport;

/** The command line and the pacing shared by the Java servers of benchmarks/manypeers.sh. */
final class PeerArgs {
    private PeerArgs() {
    }

    /** The value of {@code --name value}, or {@code dflt}. */
    static String value(String[] args, String name, String dflt) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return dflt;
    }

    /** The value of {@code --name value}; exits with status 2 and {@code usage} when it is missing. */
    static String required(String[] args, String name, String usage) {
        String v = value(args, name, null);
        if (v == null) {
            System.err.println("usage: " + usage);
            System.exit(2);
        }
        return v;
    }

    /** Sends one message; {@code seq} counts from 0. */
    @FunctionalInterface
    interface Publish {
        void send(long seq);
    }

    /**
     * Publishes at {@code rate} messages per second, forever: every millisecond, what the rate
     * allows by then less what was sent (a late tick catches up), as fanout_pub.c does.
     */
    static void paced(double rate, Publish publish) {
        paced(rate, 0, publish);
    }

    /**
     * As {@link #paced(double, Publish)}, after {@code delaySeconds}: the subscribers connect
     * before the first message, so a high rate does not meet the connect phase.
     */
    static void paced(double rate, double delaySeconds, Publish publish) {
        LockSupport.parkNanos((long) (delaySeconds * 1e9));
        long start = System.nanoTime();
        long sent = 0;
        while (true) {
            long due = (long) ((System.nanoTime() - start) * 1e-9 * rate);
            for (; sent < due; sent++) {
                publish.send(sent);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    /** A 16-byte message: {@code seq} in its first 8 bytes, 'm' in the rest. */
    static byte[] message(long seq) {
        byte[] m = new byte[16];
        java.util.Arrays.fill(m, (byte) 'm');
        for (int i = 0; i < 8; i++) {
            m[i] = (byte) (seq >>> (8 * i));
        }
        return m;
    }
}
