package io.zmtp.security;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AuthenticatorTest {
    static final InetSocketAddress FROM = new InetSocketAddress("127.0.0.1", 5555);

    static AuthRequest plain(String user, String password) {
        return AuthRequest.plain(FROM, user, password.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void plainAccountsAllowTheRightPasswordOnly() {
        Authenticator a = Authenticator.plainAccounts(Map.of("alice", "s3cret", "bob", ""));
        AuthResult ok = a.authenticate(plain("alice", "s3cret"));
        assertTrue(ok.isAllowed());
        assertEquals("alice", ok.userId());
        assertTrue(a.authenticate(plain("bob", "")).isAllowed(), "an empty password is a password");

        AuthResult wrong = a.authenticate(plain("alice", "s3cret "));
        AuthResult prefix = a.authenticate(plain("alice", "s3cre"));
        AuthResult unknown = a.authenticate(plain("mallory", "s3cret"));
        for (AuthResult r : List.of(wrong, prefix, unknown)) {
            assertFalse(r.isAllowed());
            assertEquals("400", r.statusCode());
            assertNull(r.userId());
        }
        assertEquals(wrong.reason(), unknown.reason(), "the reason does not tell a wrong password from an unknown user");
        assertFalse(a.authenticate(AuthRequest.curve(FROM, new byte[32])).isAllowed(), "not for CURVE");
    }

    @Test
    void plainPasswordsAreComparedAsBytes() {
        Authenticator a = Authenticator.plainAccounts(Map.of("u", "p\u00e9"));
        assertTrue(a.authenticate(plain("u", "p\u00e9")).isAllowed());
        byte[] latin1 = "p\u00e9".getBytes(StandardCharsets.ISO_8859_1);
        assertFalse(a.authenticate(AuthRequest.plain(FROM, "u", latin1)).isAllowed());
    }

    @Test
    void curveAllowList() {
        CurveKeyPair in = CurveKeyPair.generate();
        CurveKeyPair out = CurveKeyPair.generate();
        Authenticator a = Authenticator.curveAllowList(List.of(in.publicKey()));
        AuthResult ok = a.authenticate(AuthRequest.curve(FROM, in.publicKey()));
        assertTrue(ok.isAllowed());
        assertEquals(in.publicKeyZ85(), ok.userId(), "the user id is the client key in Z85");
        AuthResult no = a.authenticate(AuthRequest.curve(FROM, out.publicKey()));
        assertFalse(no.isAllowed());
        assertEquals("400", no.statusCode());
        assertTrue(CurveAllowList.ofZ85(in.publicKeyZ85()).authenticate(AuthRequest.curve(FROM, in.publicKey())).isAllowed());
        assertTrue(CurveAllowList.ofCertificates(List.of(CurveCertificate.of(in).publicPart()))
                .contains(in.publicKey()));
        assertFalse(a.authenticate(plain("x", "y")).isAllowed(), "not for PLAIN");
    }

    @Test
    void allowAllNamesTheClient() {
        assertEquals("carol", Authenticator.allowAll().authenticate(plain("carol", "x")).userId());
        CurveKeyPair k = CurveKeyPair.generate();
        assertEquals(k.publicKeyZ85(), Authenticator.allowAll().authenticate(AuthRequest.curve(FROM, k.publicKey())).userId());
    }

    @Test
    void resultsAndRequests() {
        assertThrows(IllegalArgumentException.class, () -> AuthResult.deny("200", "no"));
        assertThrows(IllegalArgumentException.class, () -> AuthResult.deny("40", "no"));
        assertEquals("300", AuthResult.deny("300", "later").statusCode());
        assertNull(AuthResult.allow().userId());
        // a value: equal by content, and its constructor keeps the factories' rules
        assertEquals(AuthResult.allow("bob"), AuthResult.allow("bob"));
        assertEquals(AuthResult.deny("500", "down"), new AuthResult(false, null, "500", "down"));
        assertThrows(IllegalArgumentException.class, () -> new AuthResult(true, "bob", "400", "?"));
        assertThrows(IllegalArgumentException.class, () -> new AuthResult(false, "bob", "400", "?"));
        assertEquals("", AuthResult.deny(null).reason());
        AuthRequest r = plain("alice", "hunter2");
        assertFalse(r.toString().contains("hunter2"), "the password never shows");
        assertEquals("hunter2", r.passwordString());
        r.password()[0] = 'X';
        assertEquals("hunter2", r.passwordString(), "password() is a copy");
    }
}
