import org.zeromq.ZMQ;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A ZMTP 2.0 peer for Zmtp20FallbackInteropTest: one socket of JeroMQ 0.3.6 (a port of libzmq
 * 3.2, which speaks ZMTP 2.0), run by the JDK's source launcher in a JVM of its own with only
 * that JeroMQ on its class path. One command per line on stdin, one answer line on stdout
 * ("ok [words]" or "err <message>"); frames travel hex-encoded, "-" is an empty frame.
 *
 *   socket TYPE          REQ, REP, PUB, SUB, DEALER, ROUTER... (linger 0)
 *   identity HEX         set the identity (before bind/connect)
 *   bind ENDPOINT        "tcp://127.0.0.1:*" binds a free port; answers "ok <endpoint>"
 *   connect ENDPOINT
 *   subscribe HEX        SUB only ("-": everything)
 *   send FRAME...        one message
 *   recv TIMEOUT_MS      answers "ok FRAME..." or "err timeout"
 *   version              answers "ok <JeroMQ version>"
 *   quit
 */
public final class Zmtp20Peer {
    private static final HexFormat HEX = HexFormat.of();

    public static void main(String[] args) throws Exception {
        ZMQ.Context ctx = ZMQ.context(1);
        ZMQ.Socket socket = null;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        System.out.println("ok ready");
        System.out.flush();
        String line;
        while ((line = in.readLine()) != null) {
            String[] w = line.trim().split(" ");
            String answer;
            try {
                switch (w[0]) {
                    case "socket":
                        socket = ctx.socket(ZMQ.class.getField(w[1]).getInt(null));
                        socket.setLinger(0);
                        answer = "ok";
                        break;
                    case "identity":
                        socket.setIdentity(frame(w[1]));
                        answer = "ok";
                        break;
                    case "bind":
                        if (w[1].endsWith(":*")) {
                            String host = w[1].substring(0, w[1].length() - 2);
                            answer = "ok " + host + ":" + socket.bindToRandomPort(host);
                        } else {
                            socket.bind(w[1]);
                            answer = "ok " + w[1];
                        }
                        break;
                    case "connect":
                        socket.connect(w[1]);
                        answer = "ok";
                        break;
                    case "subscribe":
                        socket.subscribe(frame(w[1]));
                        answer = "ok";
                        break;
                    case "send":
                        for (int i = 1; i < w.length; i++) {
                            socket.send(frame(w[i]), i < w.length - 1 ? ZMQ.SNDMORE : 0);
                        }
                        answer = "ok";
                        break;
                    case "recv":
                        socket.setReceiveTimeOut(Integer.parseInt(w[1]));
                        byte[] first = socket.recv(0);
                        if (first == null) {
                            answer = "err timeout";
                            break;
                        }
                        List<String> frames = new ArrayList<>();
                        frames.add(hex(first));
                        while (socket.hasReceiveMore()) {
                            frames.add(hex(socket.recv(0)));
                        }
                        answer = "ok " + String.join(" ", frames);
                        break;
                    case "version":
                        answer = "ok " + ZMQ.getVersionString();
                        break;
                    case "quit":
                        if (socket != null) {
                            socket.close();
                        }
                        ctx.term();
                        System.out.println("ok");
                        System.out.flush();
                        return;
                    default:
                        answer = "err unknown command " + w[0];
                }
            } catch (Exception e) {
                answer = "err " + e;
            }
            System.out.println(answer);
            System.out.flush();
        }
        System.exit(0);
    }

    private static byte[] frame(String word) {
        return word.equals("-") ? new byte[0] : HEX.parseHex(word);
    }

    private static String hex(byte[] b) {
        return b.length == 0 ? "-" : HEX.formatHex(b);
    }
}
