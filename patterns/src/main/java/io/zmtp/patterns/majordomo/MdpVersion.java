package io.zmtp.patterns.majordomo;

import java.nio.charset.StandardCharsets;

/**
 * The two versions of the Majordomo Protocol, which differ on the wire:
 * <ul>
 *   <li>{@link #V0_1} (7/MDP, stable): every worker command and every client message starts with
 *       an empty frame (a REQ client's delimiter); the client header is {@code MDPC01}, the worker
 *       header {@code MDPW01}; a worker answers with one REPLY; client messages carry no command
 *       frame.</li>
 *   <li>{@link #V0_2} (18/MDP, draft): no leading empty frame; headers {@code MDPC02} and
 *       {@code MDPW02}; a worker answers with zero or more PARTIAL replies and then one FINAL;
 *       client messages carry a command frame (REQUEST, PARTIAL, FINAL); clients use DEALER.</li>
 * </ul>
 * The command codes of each version are here; {@link MdpProtocol} builds and reads the frames.
 */
public enum MdpVersion {
    V0_1("0.1", "MDPC01", "MDPW01"),
    V0_2("0.2", "MDPC02", "MDPW02");

    private final String label;
    private final byte[] clientHeader;
    private final byte[] workerHeader;

    MdpVersion(String label, String clientHeader, String workerHeader) {
        this.label = label;
        this.clientHeader = clientHeader.getBytes(StandardCharsets.US_ASCII);
        this.workerHeader = workerHeader.getBytes(StandardCharsets.US_ASCII);
    }

    /** "0.1" or "0.2", as the command line's {@code --protocol} takes it. */
    public String label() {
        return label;
    }

    /** The MDP/Client header: {@code MDPC01} or {@code MDPC02}. */
    public String clientHeader() {
        return new String(clientHeader, StandardCharsets.US_ASCII);
    }

    /** The MDP/Worker header: {@code MDPW01} or {@code MDPW02}. */
    public String workerHeader() {
        return new String(workerHeader, StandardCharsets.US_ASCII);
    }

    /** The header bytes, shared: never write into them. */
    byte[] clientHeaderBytes() {
        return clientHeader;
    }

    byte[] workerHeaderBytes() {
        return workerHeader;
    }

    /** Whether messages of this version start with an empty frame (0.1 only). */
    public boolean leadingEmptyFrame() {
        return this == V0_1;
    }

    /** Whether a worker can stream PARTIAL replies before its FINAL one (0.2 only). */
    public boolean streamsPartials() {
        return this == V0_2;
    }

    /**
     * The wire code of a worker command in this version, or -1 if this version has no such
     * command (REPLY in 0.2; PARTIAL and FINAL in 0.1).
     */
    public int code(WorkerCommand command) {
        if (this == V0_1) {
            switch (command) {
                case READY: return 1;
                case REQUEST: return 2;
                case REPLY: return 3;
                case HEARTBEAT: return 4;
                case DISCONNECT: return 5;
                default: return -1;
            }
        }
        switch (command) {
            case READY: return 1;
            case REQUEST: return 2;
            case PARTIAL: return 3;
            case FINAL: return 4;
            case HEARTBEAT: return 5;
            case DISCONNECT: return 6;
            default: return -1;
        }
    }

    /** The worker command of a wire code in this version, or null for a code it does not define. */
    public WorkerCommand workerCommand(int code) {
        for (WorkerCommand c : WorkerCommand.VALUES) {
            if (code(c) == code) {
                return c;
            }
        }
        return null;
    }

    /** The version named by "0.1" or "0.2" (also accepts "1", "2", "MDP/0.1"...). */
    public static MdpVersion parse(String text) {
        String t = text.trim().toUpperCase(java.util.Locale.ROOT);
        if (t.startsWith("MDP/")) {
            t = t.substring(4);
        }
        switch (t) {
            case "0.1":
            case "1":
            case "01":
                return V0_1;
            case "0.2":
            case "2":
            case "02":
                return V0_2;
            default:
                throw new IllegalArgumentException("unknown MDP version '" + text + "' (use 0.1 or 0.2)");
        }
    }

    @Override
    public String toString() {
        return "MDP/" + label;
    }

    /** The MDP/Worker commands of both versions. */
    public enum WorkerCommand {
        READY, REQUEST, REPLY, PARTIAL, FINAL, HEARTBEAT, DISCONNECT;

        static final WorkerCommand[] VALUES = values();
    }

    /** The MDP/Client commands of 0.2 (0.1 has no command frame: a request and a reply look alike). */
    public enum ClientCommand {
        REQUEST(1), PARTIAL(2), FINAL(3);

        private final int code;

        ClientCommand(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }

        /** The command of a 0.2 client code, or null. */
        public static ClientCommand of(int code) {
            for (ClientCommand c : values()) {
                if (c.code == code) {
                    return c;
                }
            }
            return null;
        }
    }
}
