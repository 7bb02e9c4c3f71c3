package io.zmtp.interop;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * One socket of libzmq 4.3.5 with its draft types on, in a Node process: npm's {@code zeromq}
 * 6.8.0 (a prebuilt libzmq whose drafts are on; Debian's libzmq5 4.3.4 has none), installed in
 * {@code interop-tests/target/node} by {@code scripts/install-test-deps.sh}, driving one socket
 * with {@code node/draft_peer.js} of the test resources. The socket is set up by the process's
 * arguments; sends, joins and leaves are commands on its stdin; every message it receives is a
 * line on its stdout, waited for with a deadline. The peer's limits (a PEER that cannot send, no
 * zmq_connect_peer) are in draft_peer.js and docs/interop.md.
 */
final class NodePeer implements AutoCloseable {
    private static final HexFormat HEX = HexFormat.of();
    /** Where the install script puts the zeromq package (the pom passes it; this is its default). */
    static final Path NODE_DIR = Path.of(System.getProperty("zmtp.node.dir", "target/node")).toAbsolutePath();

    /** A message the Node socket received. */
    record Message(int routingId, String group, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return "[rid " + Integer.toUnsignedString(routingId) + ", group " + group + ", " + text() + "]";
        }
    }

    private final PeerScript script;
    private final String endpoint;

    private NodePeer(PeerScript script) {
        this.script = script;
        String ready = script.awaitLine("READY ");
        this.endpoint = ready.substring("READY ".length());
    }

    /**
     * Starts a Node socket of {@code type} (server, client, radio, dish, scatter, gather, channel,
     * peer) that binds or connects ({@code how}) {@code endpoint}, with draft_peer.js's options
     * ({@code --join G1,G2}, {@code --send N}, {@code --group G}, {@code --prefix P},
     * {@code --echo}); returns once it printed READY.
     */
    static NodePeer start(String type, String how, String endpoint, String... options) {
        Path modules = NODE_DIR.resolve("node_modules");
        if (!Files.isDirectory(modules.resolve("zeromq"))) {
            throw new AssertionError("npm's zeromq 6.8.0 is not installed in " + NODE_DIR
                    + ": run scripts/install-test-deps.sh");
        }
        List<String> cmd = new ArrayList<>(List.of("node", "--no-warnings", scriptFile().toString(), type, how, endpoint));
        cmd.addAll(List.of(options));
        ProcessBuilder b = new ProcessBuilder(cmd);
        // the script sits in a temporary folder: zeromq is found through NODE_PATH
        b.environment().put("NODE_PATH", modules.toString());
        return new NodePeer(PeerScript.start("node " + String.join(" ", cmd.subList(3, cmd.size())), b));
    }

    /** The script, copied out of the test resources once per test JVM. */
    private static Path scriptFile;

    private static synchronized Path scriptFile() {
        if (scriptFile == null) {
            scriptFile = copyScript();
        }
        return scriptFile;
    }

    private static Path copyScript() {
        try (InputStream s = NodePeer.class.getResourceAsStream("/node/draft_peer.js")) {
            if (s == null) {
                throw new IllegalStateException("no resource node/draft_peer.js");
            }
            Path f = Files.createTempFile("draft_peer-", ".js");
            f.toFile().deleteOnExit();
            Files.copy(s, f, StandardCopyOption.REPLACE_EXISTING);
            return f;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The endpoint the socket bound (libzmq's answer, the port resolved) or connected. */
    String endpoint() {
        return endpoint;
    }

    /** Sends one message: {@code routingId} 0 and {@code group} null for none. */
    void send(int routingId, String group, byte[] body) {
        script.writeLine("send " + Integer.toUnsignedString(routingId) + " " + (group == null ? "-" : hex(group))
                + " " + (body.length == 0 ? "-" : HEX.formatHex(body)));
    }

    private static String hex(String text) {
        return HEX.formatHex(ByteMessages.b(text));
    }

    void sendToGroup(String group, String body) {
        send(0, group, ByteMessages.b(body));
    }

    /** DISH: joins a group; returns once the socket has. */
    void join(String group) {
        String line = "JOINED " + hex(group);
        int before = (int) script.count(l -> l.equals(line));
        script.writeLine("join " + hex(group));
        script.awaitCount(line, before + 1);
    }

    /** DISH: leaves a group; returns once the socket has. */
    void leave(String group) {
        String line = "LEFT " + hex(group);
        int before = (int) script.count(l -> l.equals(line));
        script.writeLine("leave " + hex(group));
        script.awaitCount(line, before + 1);
    }

    /** Every message received so far, in order. */
    List<Message> messages() {
        List<Message> l = new ArrayList<>();
        for (String line : script.lines()) {
            if (line.startsWith("MSG ")) {
                l.add(parse(line));
            }
        }
        return l;
    }

    /** The first {@code n} messages received, waiting for them. */
    List<Message> awaitMessages(int n) {
        List<Message> l = new ArrayList<>();
        for (String line : script.awaitCount("MSG ", n)) {
            l.add(parse(line));
        }
        return l.subList(0, n);
    }

    /** How many messages the socket has queued for sending so far. */
    long sentCount() {
        return script.count(l -> l.startsWith("SENT "));
    }

    /** Lines reporting a failed command ({@code ERR ...}). */
    List<String> errors() {
        return script.lines().stream().filter(l -> l.startsWith("ERR")).toList();
    }

    private static Message parse(String line) {
        String[] w = line.split(" ");
        return new Message(Integer.parseUnsignedInt(w[1]),
                w[2].equals("-") ? null : new String(HEX.parseHex(w[2]), StandardCharsets.UTF_8),
                w[3].equals("-") ? new byte[0] : HEX.parseHex(w[3]));
    }

    /** Kills the process at once, as a crash would: its connections close without a word. */
    void kill() {
        script.kill();
    }

    @Override
    public void close() {
        script.close();
    }

    @Override
    public String toString() {
        return "Node " + endpoint + " " + script.lines();
    }
}
