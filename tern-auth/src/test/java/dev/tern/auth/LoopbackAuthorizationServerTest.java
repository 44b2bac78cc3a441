package dev.tern.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.net.URI;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jose.util.X509CertUtils;

/**
 * Key rotation, the key-fetch rate limit, introspection of opaque tokens, certificate-bound tokens and token exchange,
 * against an authorization server on 127.0.0.1 whose keys and tokens the tests control.
 */
class LoopbackAuthorizationServerTest {
    private static final String RESOURCE = "https://mcp.example.test/mcp";

    private static LoopbackAuthorizationServer authorizationServer;

    @BeforeAll
    static void start() throws Exception {
        authorizationServer = new LoopbackAuthorizationServer();
    }

    @AfterAll
    static void stop() {
        authorizationServer.close();
    }

    private static ResourceServer.Builder resourceServer() {
        return ResourceServer.builder(RESOURCE).authorizationServer(authorizationServer.issuer());
    }

    private static AccessPrincipal principal(AuthOutcome outcome) {
        assertThat(outcome).isInstanceOf(AuthOutcome.Authenticated.class);
        return ((AuthOutcome.Authenticated) outcome).principal();
    }

    private static AuthOutcome.Challenge challenge(AuthOutcome outcome) {
        assertThat(outcome).isInstanceOf(AuthOutcome.Challenge.class);
        return (AuthOutcome.Challenge) outcome;
    }

    private static X509Certificate certificate(String name) throws Exception {
        try (InputStream in = LoopbackAuthorizationServerTest.class.getResourceAsStream(name)) {
            return X509CertUtils.parse(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII));
        }
    }

    @Test
    void aTokenSignedWithARotatedInKeyIsAcceptedAfterOneFetchOfTheNewKeys() {
        try (ResourceServer auth = resourceServer().keyRefreshMinInterval(Duration.ofMillis(1)).build()) {
            assertThat(principal(auth.authenticate("Bearer " + authorizationServer.sign(RESOURCE, Map.of())))
                    .subject()).isEqualTo("alice");
            int fetches = authorizationServer.keyFetches.get();

            authorizationServer.rotate();
            String afterRotation = authorizationServer.sign(RESOURCE, Map.of("scope", "users:read"));

            assertThat(principal(auth.authenticate("Bearer " + afterRotation)).scopes()).containsExactly("users:read");
            assertThat(authorizationServer.keyFetches.get()).isEqualTo(fetches + 1);
        }
    }

    @Test
    void tokensWithMadeUpKeyIdsCannotMakeTheResourceServerFetchKeysMoreThanItsRateAllows() throws Exception {
        try (ResourceServer auth = resourceServer().keyRefreshMinInterval(Duration.ofMinutes(1)).build()) {
            principal(auth.authenticate("Bearer " + authorizationServer.sign(RESOURCE, Map.of())));
            int fetches = authorizationServer.keyFetches.get();

            RSAKey forger = new RSAKeyGenerator(2048).generate();
            for (int i = 0; i < 50; i++) {
                RSAKey unknown = new RSAKey.Builder(forger).keyID(UUID.randomUUID().toString()).build();
                AuthOutcome.Challenge challenge = challenge(
                        auth.authenticate("Bearer " + authorizationServer.sign(unknown, RESOURCE, Map.of())));
                assertThat(challenge.status()).isEqualTo(401);
                assertThat(challenge.wwwAuthenticate()).contains("signature does not verify");
            }

            // Nimbus's limiter lets one refresh through per interval after the first fetch.
            assertThat(authorizationServer.keyFetches.get() - fetches).isLessThanOrEqualTo(1);
            assertThat(principal(auth.authenticate("Bearer " + authorizationServer.sign(RESOURCE, Map.of())))
                    .subject()).as("genuine tokens still pass").isEqualTo("alice");
        }
    }

    @Test
    void anAuthorizationServerThatCannotBeReachedMakesTheOutcomeUnavailableNotAnInvalidToken() throws Exception {
        int closedPort;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1,
                java.net.InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        try (ResourceServer auth = ResourceServer.builder(RESOURCE)
                .authorizationServer("http://127.0.0.1:" + closedPort).httpTimeout(Duration.ofSeconds(2)).build()) {
            String token = authorizationServer.sign(RESOURCE, Map.of("iss", "http://127.0.0.1:" + closedPort));

            for (int i = 0; i < 3; i++) {
                AuthOutcome outcome = auth.authenticate("Bearer " + token);

                assertThat(outcome).as("request %d (later ones held back by the key-fetch rate limit)", i)
                        .isInstanceOf(AuthOutcome.Unavailable.class);
                assertThat(((AuthOutcome.Unavailable) outcome).retryAfter()).isPositive();
            }
        }
    }

    @Test
    void aCertificateBoundTokenIsAcceptedOnlyWithItsCertificate() throws Exception {
        X509Certificate mine = certificate("client-a.pem");
        X509Certificate other = certificate("client-b.pem");
        String bound = authorizationServer.sign(RESOURCE,
                Map.of("cnf", Map.of("x5t#S256", X509CertUtils.computeSHA256Thumbprint(mine).toString())));
        try (ResourceServer auth = resourceServer().build()) {
            assertThat(principal(auth.authenticate("Bearer " + bound, mine)).subject()).isEqualTo("alice");
            // the second time the token comes from the verified-token cache: the binding is checked all the same
            assertThat(challenge(auth.authenticate("Bearer " + bound, other)).wwwAuthenticate())
                    .contains("bound to another client certificate");
            assertThat(challenge(auth.authenticate("Bearer " + bound)).wwwAuthenticate())
                    .contains("bound to a client certificate the request lacks");
            assertThat(principal(auth.authenticate("Bearer " + authorizationServer.sign(RESOURCE, Map.of()), other))
                    .subject()).as("an unbound token with a certificate").isEqualTo("alice");
        }
    }

    @Test
    void aTokenNotYetValidIsRefused() {
        long inAnHour = System.currentTimeMillis() / 1000 + 3600;
        try (ResourceServer auth = resourceServer().build()) {
            assertThat(challenge(auth.authenticate("Bearer " + authorizationServer.sign(RESOURCE,
                    Map.of("nbf", inAnHour)))).wwwAuthenticate()).contains("not valid yet");
        }
    }

    @Test
    void anActiveOpaqueTokenIsIntrospectedAndARevokedOneRefusedOnTheNextRequest() {
        authorizationServer.issueOpaque("opaque-active-1", Map.of("sub", "bob", "aud", RESOURCE,
                "iss", authorizationServer.issuer(), "scope", "users:read", "client_id", "cli",
                "exp", System.currentTimeMillis() / 1000 + 600));
        try (ResourceServer auth = resourceServer()
                .introspection(authorizationServer.introspectionEndpoint(), LoopbackAuthorizationServer.CLIENT_ID,
                        LoopbackAuthorizationServer.CLIENT_SECRET)
                .introspectionCacheTtl(Duration.ZERO).build()) {
            AccessPrincipal bob = principal(auth.authenticate("Bearer opaque-active-1"));
            assertThat(bob.subject()).isEqualTo("bob");
            assertThat(bob.scopes()).containsExactly("users:read");
            assertThat(bob.clientId()).isEqualTo("cli");

            authorizationServer.revoke("opaque-active-1");

            assertThat(challenge(auth.authenticate("Bearer opaque-active-1")).wwwAuthenticate())
                    .contains("error=\"invalid_token\"").contains("not active");
        }
    }

    @Test
    void introspectionAnswersAreCachedButNeverPastTheTokensExpiry() {
        long now = System.currentTimeMillis() / 1000;
        authorizationServer.issueOpaque("opaque-cached", Map.of("sub", "carol", "aud", List.of(RESOURCE, "x"),
                "exp", now + 600));
        authorizationServer.issueOpaque("opaque-expired", Map.of("sub", "dave", "aud", RESOURCE, "exp", now - 5));
        try (ResourceServer auth = resourceServer()
                .introspection(authorizationServer.introspectionEndpoint(), LoopbackAuthorizationServer.CLIENT_ID,
                        LoopbackAuthorizationServer.CLIENT_SECRET)
                .clockSkew(Duration.ZERO).build()) {
            int before = authorizationServer.introspections.get();
            for (int i = 0; i < 5; i++) {
                assertThat(principal(auth.authenticate("Bearer opaque-cached")).subject()).isEqualTo("carol");
            }
            assertThat(authorizationServer.introspections.get() - before).isEqualTo(1);

            for (int i = 0; i < 3; i++) {
                assertThat(challenge(auth.authenticate("Bearer opaque-expired")).wwwAuthenticate())
                        .contains("has expired");
            }
            assertThat(authorizationServer.introspections.get() - before).as("an expired answer is not kept")
                    .isEqualTo(4);
        }
    }

    @Test
    void anActiveOpaqueTokenForAnotherResourceIsRefused() {
        authorizationServer.issueOpaque("opaque-elsewhere", Map.of("sub", "erin", "aud", "https://other.test/api"));
        authorizationServer.issueOpaque("opaque-no-audience", Map.of("sub", "erin"));
        try (ResourceServer auth = resourceServer()
                .introspection(authorizationServer.introspectionEndpoint(), LoopbackAuthorizationServer.CLIENT_ID,
                        LoopbackAuthorizationServer.CLIENT_SECRET).build()) {
            assertThat(challenge(auth.authenticate("Bearer opaque-elsewhere")).wwwAuthenticate())
                    .contains("not issued for this resource");
            assertThat(challenge(auth.authenticate("Bearer opaque-no-audience")).wwwAuthenticate())
                    .contains("not issued for this resource");
        }
    }

    @Test
    void wrongIntrospectionCredentialsMakeTheOutcomeUnavailable() {
        authorizationServer.issueOpaque("opaque-creds", Map.of("sub", "frank", "aud", RESOURCE));
        try (ResourceServer auth = resourceServer()
                .introspection(authorizationServer.introspectionEndpoint(), LoopbackAuthorizationServer.CLIENT_ID,
                        "wrong").build()) {
            assertThat(auth.authenticate("Bearer opaque-creds")).isInstanceOf(AuthOutcome.Unavailable.class);
        }
    }

    @Test
    void aHandlerGetsADownstreamTokenThroughTheExchangeNeverTheInboundToken() {
        String inbound = authorizationServer.sign(RESOURCE, Map.of("scope", "users:read"));
        List<String> presented = new java.util.ArrayList<>();
        try (ResourceServer auth = resourceServer()
                .tokenExchange((subjectToken, principal, audience, scopes) -> {
                    presented.add(subjectToken);
                    return new TokenExchange.DownstreamToken("downstream-for-" + principal.subject() + "@"
                            + audience.getHost() + scopes, "Bearer", null);
                })
                .build()) {
            AccessPrincipal alice = principal(auth.authenticate("Bearer " + inbound));

            TokenExchange.DownstreamToken token = auth.exchange(alice, URI.create("https://crm.example.test/api"),
                    Set.of("crm:read"));

            assertThat(token.accessToken()).isEqualTo("downstream-for-alice@crm.example.test[crm:read]");
            assertThat(presented).containsExactly(inbound);
            assertThatThrownBy(() -> auth.exchange(alice, URI.create(RESOURCE), Set.of()))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> auth.exchange(AccessPrincipal.of("i", "s", null, Set.of(), Map.of(), null),
                    URI.create("https://crm.example.test/api"), Set.of())).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void anExchangeThatHandsBackTheInboundTokenIsRefused() {
        try (ResourceServer auth = resourceServer()
                .tokenExchange((subjectToken, principal, audience, scopes) ->
                        new TokenExchange.DownstreamToken(subjectToken, "Bearer", null))
                .build()) {
            AccessPrincipal alice = principal(auth.authenticate("Bearer "
                    + authorizationServer.sign(RESOURCE, Map.of())));
            assertThatThrownBy(() -> auth.exchange(alice, URI.create("https://crm.example.test/api"), Set.of()))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("passthrough");
        }
    }

    @Test
    void anotherSchemeIsCheckedByItsOwnVerifier() {
        try (ResourceServer auth = resourceServer()
                .verifier("DPoP", (credentials, certificate) -> {
                    if (!credentials.equals("good")) {
                        throw new InvalidTokenException("not good");
                    }
                    return AccessPrincipal.of("https://dpop.test", "gina", null, Set.of(), Map.of(), null);
                })
                .build()) {
            assertThat(principal(auth.authenticate("DPoP good")).subject()).isEqualTo("gina");
            assertThat(challenge(auth.authenticate("dpop bad")).wwwAuthenticate()).contains("not good");
            assertThat(principal(auth.authenticate("Bearer " + authorizationServer.sign(RESOURCE, Map.of())))
                    .subject()).as("Bearer still built in").isEqualTo("alice");
        }
    }
}
