package io.zmtp.security;

import io.netty.util.NetUtil;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Allow and deny lists of IP addresses and CIDR ranges, as CZMQ's {@code zauth} and JeroMQ's
 * {@code ZAuth} offer: an {@link Authenticator} that judges a client by its address, then hands
 * an address it lets through to the next authenticator ({@link #then}), which checks the
 * credentials. With NULL (the mechanism {@link AuthenticatingNullMechanism}, or a ZAP domain on
 * the socket) the address is all there is to judge.
 *
 * <p>A client is refused with status 400 when its address matches a deny rule, or when there are
 * allow rules and it matches none of them; a client whose address is unknown (not TCP: ipc://,
 * inproc://) matches no rule. IPv4 addresses seen as IPv4-mapped IPv6 ({@code ::ffff:10.0.0.1},
 * on a dual-stack socket) match IPv4 rules. Rules are IP literals, never host names (no DNS
 * lookup is ever made). Thread-safe (immutable).
 */
public final class AddressRules implements Authenticator {
    private final List<Range> allow;
    private final List<Range> deny;
    private final Authenticator next;

    private AddressRules(List<Range> allow, List<Range> deny, Authenticator next) {
        this.allow = allow;
        this.deny = deny;
        this.next = next;
    }

    /** Only clients whose address matches one of {@code rules} ("10.0.0.0/8", "192.168.1.7", "fd00::/8"). */
    public static AddressRules allow(String... rules) {
        return new AddressRules(parse(rules), List.of(), null);
    }

    /** Every client except those whose address matches one of {@code rules}. */
    public static AddressRules deny(String... rules) {
        return new AddressRules(List.of(), parse(rules), null);
    }

    /** These rules and more allow rules. */
    public AddressRules andAllow(String... rules) {
        List<Range> a = new ArrayList<>(allow);
        a.addAll(parse(rules));
        return new AddressRules(List.copyOf(a), deny, next);
    }

    /** These rules and more deny rules (a deny rule wins over an allow rule). */
    public AddressRules andDeny(String... rules) {
        List<Range> d = new ArrayList<>(deny);
        d.addAll(parse(rules));
        return new AddressRules(allow, List.copyOf(d), next);
    }

    /**
     * These rules, then {@code credentials} for a client they let through (without, such a client
     * is allowed with no user id).
     */
    public AddressRules then(Authenticator credentials) {
        return new AddressRules(allow, deny, Objects.requireNonNull(credentials, "credentials"));
    }

    /** The reason a client at {@code address} (27/ZAP's address frame) is refused, or null. */
    public String refusal(String address) {
        byte[] ip = address == null || address.isEmpty() ? null : NetUtil.createByteArrayFromIpAddressString(address);
        ip = ip == null ? null : unmapped(ip);
        for (Range r : deny) {
            if (r.contains(ip)) {
                return "address " + address + " is denied (" + r + ")";
            }
        }
        if (!allow.isEmpty()) {
            for (Range r : allow) {
                if (r.contains(ip)) {
                    return null;
                }
            }
            return "address " + (address == null || address.isEmpty() ? "(none)" : address) + " is not allowed";
        }
        return null;
    }

    @Override
    public AuthResult authenticate(AuthRequest request) {
        String refusal = refusal(request.address());
        if (refusal != null) {
            return AuthResult.deny("400", refusal);
        }
        return next != null ? next.authenticate(request) : AuthResult.allow();
    }

    @Override
    public CompletionStage<AuthResult> authenticateAsync(AuthRequest request) {
        String refusal = refusal(request.address());
        if (refusal != null) {
            return CompletableFuture.completedFuture(AuthResult.deny("400", refusal));
        }
        return next != null ? next.authenticateAsync(request) : CompletableFuture.completedFuture(AuthResult.allow());
    }

    private static List<Range> parse(String... rules) {
        List<Range> out = new ArrayList<>();
        for (String rule : rules) {
            out.add(Range.parse(rule));
        }
        return List.copyOf(out);
    }

    /** An IPv4-mapped IPv6 address as its IPv4 address; others unchanged. */
    private static byte[] unmapped(byte[] ip) {
        if (ip.length == 16) {
            for (int i = 0; i < 10; i++) {
                if (ip[i] != 0) {
                    return ip;
                }
            }
            if (ip[10] == (byte) 0xff && ip[11] == (byte) 0xff) {
                return Arrays.copyOfRange(ip, 12, 16);
            }
        }
        return ip;
    }

    @Override
    public String toString() {
        return "AddressRules{allow " + allow + ", deny " + deny + (next != null ? ", then " + next : "") + "}";
    }

    /** One rule: an address and a prefix length. */
    private static final class Range {
        private final String text;
        private final byte[] network;
        private final int bits;

        private Range(String text, byte[] network, int bits) {
            this.text = text;
            this.network = network;
            this.bits = bits;
        }

        static Range parse(String rule) {
            String r = rule.trim();
            int slash = r.indexOf('/');
            String host = slash < 0 ? r : r.substring(0, slash);
            byte[] ip = NetUtil.createByteArrayFromIpAddressString(host);
            if (ip == null) {
                throw new IllegalArgumentException("not an IP address or CIDR range: '" + rule + "'");
            }
            ip = unmapped(ip);
            int max = ip.length * 8;
            int bits = max;
            if (slash >= 0) {
                try {
                    bits = Integer.parseInt(r.substring(slash + 1));
                } catch (NumberFormatException e) {
                    bits = -1;
                }
                if (bits < 0 || bits > max) {
                    throw new IllegalArgumentException("prefix length of '" + rule + "' is not 0-" + max);
                }
            }
            return new Range(r, ip, bits);
        }

        boolean contains(byte[] ip) {
            if (ip == null || ip.length != network.length) {
                return false;
            }
            int full = bits / 8;
            for (int i = 0; i < full; i++) {
                if (ip[i] != network[i]) {
                    return false;
                }
            }
            int rest = bits % 8;
            if (rest == 0) {
                return true;
            }
            int mask = (0xff << (8 - rest)) & 0xff;
            return (ip[full] & mask) == (network[full] & mask);
        }

        @Override
        public String toString() {
            return text;
        }
    }
}
