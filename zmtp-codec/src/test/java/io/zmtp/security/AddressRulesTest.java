package io.zmtp.security;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AddressRulesTest {
    static AuthRequest nullFrom(String ip) {
        return AuthRequest.nullMechanism(new InetSocketAddress(ip, 5555), "global");
    }

    @Test
    void allowListsAndCidrRanges() {
        AddressRules rules = AddressRules.allow("10.0.0.0/8", "192.168.1.7", "fd00::/8");
        assertTrue(rules.authenticate(nullFrom("10.200.3.4")).allowed());
        assertTrue(rules.authenticate(nullFrom("192.168.1.7")).allowed());
        assertTrue(rules.authenticate(nullFrom("fd12::1")).allowed());
        AuthResult out = rules.authenticate(nullFrom("192.168.1.8"));
        assertEquals("400", out.statusCode());
        assertTrue(out.reason().contains("192.168.1.8 is not allowed"), out.reason());
        assertEquals("400", rules.authenticate(nullFrom("11.0.0.1")).statusCode());
        assertEquals("400", rules.authenticate(AuthRequest.nullMechanism(null, "")).statusCode(),
                "a client with no IP address matches no allow rule");
    }

    @Test
    void prefixesThatAreNotWholeBytes() {
        AddressRules rules = AddressRules.allow("172.16.0.0/12");
        assertTrue(rules.authenticate(nullFrom("172.31.255.255")).allowed());
        assertEquals("400", rules.authenticate(nullFrom("172.32.0.0")).statusCode());
        assertEquals("400", rules.authenticate(nullFrom("172.15.255.255")).statusCode());
        assertTrue(AddressRules.allow("0.0.0.0/0").authenticate(nullFrom("8.8.8.8")).allowed());
    }

    @Test
    void denyWinsAndMappedAddressesMatchIpv4Rules() {
        AddressRules rules = AddressRules.deny("203.0.113.0/24");
        assertEquals("400", rules.authenticate(nullFrom("203.0.113.9")).statusCode());
        assertEquals("400", rules.authenticate(nullFrom("::ffff:203.0.113.9")).statusCode(),
                "an IPv4-mapped IPv6 address matches the IPv4 rule");
        assertTrue(rules.authenticate(nullFrom("198.51.100.1")).allowed());
        AddressRules both = AddressRules.allow("10.0.0.0/8").andDeny("10.9.0.0/16");
        assertTrue(both.authenticate(nullFrom("10.1.0.1")).allowed());
        assertEquals("400", both.authenticate(nullFrom("10.9.0.1")).statusCode());
    }

    @Test
    void thenChecksCredentialsOfAddressesLetThrough() {
        Authenticator rules = AddressRules.allow("127.0.0.1").then(PlainAccounts.of(Map.of("admin", "secret")));
        InetSocketAddress local = new InetSocketAddress("127.0.0.1", 1);
        assertEquals("admin", rules.authenticate(AuthRequest.plain(local, "admin", "secret".getBytes())).userId());
        assertEquals("400", rules.authenticate(AuthRequest.plain(local, "admin", "wrong".getBytes())).statusCode());
        AuthResult far = rules.authenticate(AuthRequest.plain(new InetSocketAddress("10.0.0.1", 1), "admin",
                "secret".getBytes()));
        assertEquals("400", far.statusCode());
        assertTrue(far.reason().contains("not allowed"), far.reason());
        assertTrue(rules.authenticateAsync(AuthRequest.plain(local, "admin", "secret".getBytes()))
                .toCompletableFuture().join().allowed());
    }

    @Test
    void rulesAreIpLiteralsNeverHostNames() {
        assertThrows(IllegalArgumentException.class, () -> AddressRules.allow("localhost"));
        assertThrows(IllegalArgumentException.class, () -> AddressRules.allow("10.0.0.0/33"));
        assertThrows(IllegalArgumentException.class, () -> AddressRules.deny("10.0.0.0/x"));
        assertNull(AddressRules.allow("::1").refusal("::1"));
    }
}
