package io.zmtp.benchmarks.majordomo;

import org.zeromq.ZMQ;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** MDP/0.1 frames and multipart helpers for the JeroMQ twin (7/MDP, as the guide's examples speak it). */
final class JeromqMdp {
    static final byte[] EMPTY = new byte[0];
    static final byte[] CLIENT = "MDPC01".getBytes(StandardCharsets.US_ASCII);
    static final byte[] WORKER = "MDPW01".getBytes(StandardCharsets.US_ASCII);
    static final byte READY = 1;
    static final byte REQUEST = 2;
    static final byte REPLY = 3;
    static final byte HEARTBEAT = 4;
    static final byte DISCONNECT = 5;
    static final long HEARTBEAT_INTERVAL_MS = 2500;
    static final int HEARTBEAT_LIVENESS = 3;

    private JeromqMdp() {
    }

    /** Receives one whole multipart message (blocking). */
    static List<byte[]> receive(ZMQ.Socket s) {
        List<byte[]> frames = new ArrayList<>(8);
        do {
            frames.add(s.recv(0));
        } while (s.hasReceiveMore());
        return frames;
    }

    /** Receives one whole message, or null when the socket's receive timeout passes first. */
    static List<byte[]> receiveOrNull(ZMQ.Socket s) {
        byte[] first = s.recv(0);
        if (first == null) {
            return null;
        }
        List<byte[]> frames = new ArrayList<>(8);
        frames.add(first);
        while (s.hasReceiveMore()) {
            frames.add(s.recv(0));
        }
        return frames;
    }

    static void send(ZMQ.Socket s, List<byte[]> frames) {
        int last = frames.size() - 1;
        for (int i = 0; i < last; i++) {
            s.sendMore(frames.get(i));
        }
        s.send(frames.get(last), 0);
    }

    static void send(ZMQ.Socket s, byte[]... frames) {
        send(s, Arrays.asList(frames));
    }

    static byte[] code(byte c) {
        return new byte[] {c};
    }
}
