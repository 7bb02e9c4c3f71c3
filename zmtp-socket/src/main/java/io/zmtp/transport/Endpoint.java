package io.zmtp.transport;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.Objects;

/**
 * A ZeroMQ endpoint string, parsed: {@code tcp://host:port} (host {@code *} means every
 * interface, port {@code *} or 0 an ephemeral port), {@code ipc://path} (a Unix domain socket;
 * {@code ipc://@name} is Linux's abstract namespace, as libzmq) and {@code inproc://name}; and
 * over tcp, {@code ws://host:port/path} and {@code wss://host:port/path} (ZMTP on WebSocket after
 * ZWS 2.0, as libzmq's ws://; the path defaults to {@code /}) and {@code tls://host:port} (ZMTP
 * inside TLS; libzmq has no equivalent); and for RADIO and DISH only, {@code udp://host:port},
 * {@code udp://*:port} or a multicast group {@code udp://239.1.2.3:port}, optionally after the
 * interface to use and a semicolon: {@code udp://eth0;239.1.2.3:port} (zmq_udp(7)).
 */
public final class Endpoint {

    /** The transports a ZeroMQ endpoint can name. */
    public enum Transport {
        TCP, IPC, INPROC,
        /** ZWS 2.0: ZMTP over WebSocket. */
        WS,
        /** ZWS 2.0 over WebSocket over TLS. */
        WSS,
        /** ZMTP inside TLS over tcp. */
        TLS,
        /** RADIO/DISH datagrams (zmq_udp(7)): no connection, no ZMTP greeting, one message per datagram. */
        UDP;

        /** Whether this transport runs over a tcp connection (host and port). */
        public boolean overTcp() {
            return this == TCP || this == WS || this == WSS || this == TLS;
        }

        /** Whether this transport is ZMTP on WebSocket. */
        public boolean webSocket() {
            return this == WS || this == WSS;
        }

        /** Whether this transport runs inside TLS. */
        public boolean secure() {
            return this == WSS || this == TLS;
        }
    }

    private final Transport transport;
    private final String address;
    private final String host;
    private final int port;
    /** The WebSocket path of ws:// and wss:// ({@code /} when none is given); null otherwise. */
    private final String path;
    /** udp://: the interface given before a semicolon (a name or an address), or null. */
    private final String udpInterface;

    private Endpoint(Transport transport, String address, String host, int port) {
        this(transport, address, host, port, null);
    }

    private Endpoint(Transport transport, String address, String host, int port, String path) {
        this(transport, address, host, port, path, null);
    }

    private Endpoint(Transport transport, String address, String host, int port, String path, String udpInterface) {
        this.transport = transport;
        this.address = address;
        this.host = host;
        this.port = port;
        this.path = path;
        this.udpInterface = udpInterface;
    }

    /**
     * Parses an endpoint.
     *
     * @throws IllegalArgumentException for an unknown transport or a malformed address
     */
    public static Endpoint parse(String endpoint) {
        Objects.requireNonNull(endpoint, "endpoint");
        int sep = endpoint.indexOf("://");
        if (sep <= 0) {
            throw new IllegalArgumentException("not an endpoint (transport://address): " + endpoint);
        }
        String scheme = endpoint.substring(0, sep).toLowerCase(Locale.ROOT);
        String rest = endpoint.substring(sep + 3);
        if (rest.isEmpty()) {
            throw new IllegalArgumentException("endpoint without an address: " + endpoint);
        }
        switch (scheme) {
            case "tcp": {
                int colon = rest.lastIndexOf(':');
                if (colon <= 0 || colon == rest.length() - 1) {
                    throw new IllegalArgumentException("tcp endpoint needs host:port: " + endpoint);
                }
                String h = rest.substring(0, colon);
                if (h.startsWith("[") && h.endsWith("]")) {
                    h = h.substring(1, h.length() - 1);
                }
                String p = rest.substring(colon + 1);
                int portNumber;
                if (p.equals("*")) {
                    portNumber = 0;
                } else {
                    try {
                        portNumber = Integer.parseInt(p);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("bad tcp port in " + endpoint);
                    }
                    if (portNumber < 0 || portNumber > 65535) {
                        throw new IllegalArgumentException("tcp port out of range in " + endpoint);
                    }
                }
                return new Endpoint(Transport.TCP, rest, h, portNumber);
            }
            case "ws":
            case "wss": {
                Transport t = scheme.equals("ws") ? Transport.WS : Transport.WSS;
                int slash = rest.indexOf('/');
                String hostPort = slash < 0 ? rest : rest.substring(0, slash);
                String wsPath = slash < 0 ? "/" : rest.substring(slash);
                Endpoint hp = parse("tcp://" + hostPort);
                return new Endpoint(t, hostPort + wsPath, hp.host, hp.port, wsPath);
            }
            case "tls": {
                Endpoint hp = parse("tcp://" + rest);
                return new Endpoint(Transport.TLS, rest, hp.host, hp.port);
            }
            case "udp": {
                int semicolon = rest.indexOf(';');
                String iface = semicolon < 0 ? null : rest.substring(0, semicolon);
                if (iface != null && iface.isEmpty()) {
                    throw new IllegalArgumentException("udp endpoint with an empty interface before ';': " + endpoint);
                }
                Endpoint hp = parse("tcp://" + rest.substring(semicolon + 1));
                return new Endpoint(Transport.UDP, rest, hp.host, hp.port, null, iface);
            }
            case "ipc":
                return new Endpoint(Transport.IPC, rest, null, -1);
            case "inproc":
                return new Endpoint(Transport.INPROC, rest, null, -1);
            default:
                throw new IllegalArgumentException("unsupported transport '" + scheme + "' in " + endpoint
                        + " (tcp, ipc, inproc, ws, wss, tls and udp are supported)");
        }
    }

    public Transport transport() {
        return transport;
    }

    /** Everything after {@code ://}. */
    public String address() {
        return address;
    }

    /** The WebSocket path of a ws:// or wss:// endpoint ({@code /} when none was given); null otherwise. */
    public String path() {
        return path;
    }

    /** udp://: the interface named before the semicolon (a name or an address), or null. */
    public String udpInterface() {
        return udpInterface;
    }

    /** The tcp or udp host ({@code *} for every interface); null for other transports. */
    public String host() {
        return host;
    }

    /** The tcp port (0 for an ephemeral one); -1 for other transports. */
    public int port() {
        return port;
    }

    /** Whether this tcp endpoint binds every interface. */
    public boolean isWildcardHost() {
        return "*".equals(host) || "0.0.0.0".equals(host) || "::".equals(host);
    }

    /**
     * The address to bind a tcp endpoint to: every interface for a wildcard host, else
     * {@code address}, the host looked up (by {@link NameResolvers}, without blocking: a name is
     * never resolved here).
     */
    public InetSocketAddress bindAddress(InetAddress address) {
        return isWildcardHost() ? new InetSocketAddress(port) : new InetSocketAddress(address, port);
    }

    /**
     * Checks that this tcp endpoint can be connected to: not a wildcard host.
     *
     * @throws IllegalArgumentException for a wildcard host
     */
    public void checkConnectable() {
        if (isWildcardHost()) {
            throw new IllegalArgumentException("cannot connect to a wildcard host: " + this);
        }
    }

    /** The address to connect this tcp endpoint to, its host looked up as {@code address}. */
    public InetSocketAddress connectAddress(InetAddress address) {
        return new InetSocketAddress(address, port);
    }

    /** The endpoint with its tcp port replaced: what a bind to port 0 reports. */
    public Endpoint withPort(int actualPort) {
        String h = "*".equals(host) ? "0.0.0.0" : host;
        String a = (h.indexOf(':') >= 0 ? "[" + h + "]" : h) + ":" + actualPort;
        if (path != null) {
            a = a + path;
        }
        if (udpInterface != null) {
            a = udpInterface + ";" + a;
        }
        return new Endpoint(transport, a, host, actualPort, path, udpInterface);
    }

    /** An ipc endpoint with its path replaced (for {@code ipc://*}). */
    public Endpoint withPath(String path) {
        return new Endpoint(Transport.IPC, path, null, -1);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Endpoint && ((Endpoint) o).transport == transport
                && ((Endpoint) o).address.equals(address);
    }

    @Override
    public int hashCode() {
        return transport.hashCode() * 31 + address.hashCode();
    }

    @Override
    public String toString() {
        return transport.name().toLowerCase(Locale.ROOT) + "://" + address;
    }
}
