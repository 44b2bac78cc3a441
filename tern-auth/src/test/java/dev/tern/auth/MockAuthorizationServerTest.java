package dev.tern.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.interfaces.RSAPublicKey;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;

import no.nav.security.mock.oauth2.MockOAuth2Server;

/** Tokens issued by a real authorization server (mock-oauth2-server on 127.0.0.1), good ones and forged ones. */
class MockAuthorizationServerTest {
    private static final String RESOURCE = "http://127.0.0.1:8080/mcp";
    private static final String METADATA = "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp";

    private static MockOAuth2Server authorizationServer;
    private static String issuer;
    private static ResourceServer resourceServer;

    @BeforeAll
    static void start() {
        authorizationServer = new MockOAuth2Server();
        authorizationServer.start(InetAddress.getLoopbackAddress(), 0);
        issuer = authorizationServer.issuerUrl("default").toString();
        resourceServer = ResourceServer.builder(RESOURCE)
                .authorizationServer(issuer)
                .scopesSupported("users:read", "users:write")
                .httpTimeout(java.time.Duration.ofSeconds(30)) // the mock's first answers are slow on a busy machine
                .build();
    }

    @AfterAll
    static void stop() {
        resourceServer.close();
        authorizationServer.shutdown();
    }

    private static String token(String audience, Map<String, Object> claims, long expirySeconds) {
        return authorizationServer.issueToken("default", "alice", audience, claims, expirySeconds).serialize();
    }

    private static String validToken() {
        return token(RESOURCE, Map.of("scope", "users:read", "client_id", "vscode"), 3600);
    }

    private static AuthOutcome.Challenge challenge(AuthOutcome outcome) {
        assertThat(outcome).isInstanceOf(AuthOutcome.Challenge.class);
        return (AuthOutcome.Challenge) outcome;
    }

    private static void assertInvalidToken(AuthOutcome outcome, String description) {
        AuthOutcome.Challenge challenge = challenge(outcome);
        assertThat(challenge.status()).isEqualTo(401);
        assertThat(challenge.error()).isEqualTo("invalid_token");
        assertThat(challenge.wwwAuthenticate()).isEqualTo("Bearer error=\"invalid_token\", "
                + "scope=\"users:read users:write\", resource_metadata=\"" + METADATA + "\", error_description=\""
                + description + "\"");
    }

    @Test
    void aTokenFromTheAuthorizationServerForThisResourceIsTheCallersPrincipal() {
        AuthOutcome outcome = resourceServer.authenticate("Bearer " + validToken());

        assertThat(outcome).isInstanceOf(AuthOutcome.Authenticated.class);
        AccessPrincipal principal = ((AuthOutcome.Authenticated) outcome).principal();
        assertThat(principal.subject()).isEqualTo("alice");
        assertThat(principal.issuer()).isEqualTo(issuer);
        assertThat(principal.name()).isEqualTo(issuer + " alice");
        assertThat(principal.clientId()).isEqualTo("vscode");
        assertThat(principal.scopes()).containsExactly("users:read");
        assertThat(principal.claims()).containsEntry("sub", "alice").containsKey("exp");
        assertThat(principal.toString()).as("the token never shows").doesNotContain(validToken().substring(0, 20));
    }

    @Test
    void theSchemeNameIsCaseInsensitive() {
        assertThat(resourceServer.authenticate("bearer  " + validToken()))
                .isInstanceOf(AuthOutcome.Authenticated.class);
    }

    @Test
    void aRequestWithoutCredentialsIsToldWhereTheMetadataIsAndWhichScopesToAskFor() {
        String expected = "Bearer scope=\"users:read users:write\", resource_metadata=\"" + METADATA + "\"";
        for (String header : new String[] {null, "", "  ", "Basic YWxpY2U6c2VjcmV0"}) {
            AuthOutcome.Challenge challenge = challenge(resourceServer.authenticate(header));
            assertThat(challenge.status()).as("header %s", header).isEqualTo(401);
            assertThat(challenge.error()).as("no error code without credentials").isNull();
            assertThat(challenge.wwwAuthenticate()).isEqualTo(expected);
        }
    }

    @Test
    void aMalformedBearerHeaderIsAnInvalidToken() {
        for (String header : new String[] {"Bearer", "Bearer ", "Bearer a b", "Bearer tok\"en", "Bearer =abc"}) {
            assertInvalidToken(resourceServer.authenticate(header),
                    "The Authorization header does not hold a bearer token");
        }
        assertInvalidToken(resourceServer.authenticate("Bearer a.b.c"), "The access token is not a well-formed JWT");
        assertInvalidToken(resourceServer.authenticate("Bearer opaque-token"), "The access token is not a JWT");
    }

    @Test
    void anExpiredTokenIsRefusedOnceTheClockSkewIsPast() {
        assertInvalidToken(resourceServer.authenticate("Bearer " + token(RESOURCE, Map.of(), -120)),
                "The access token has expired");
        assertThat(resourceServer.authenticate("Bearer " + token(RESOURCE, Map.of(), -30)))
                .as("30 s past exp is within the 60 s skew").isInstanceOf(AuthOutcome.Authenticated.class);
    }

    @Test
    void aTokenForAnotherAudienceIsRefused() {
        assertInvalidToken(resourceServer.authenticate("Bearer " + token("http://127.0.0.1:8080/other", Map.of(),
                3600)), "The access token was not issued for this resource");
        assertInvalidToken(resourceServer.authenticate("Bearer " + token(RESOURCE + "/", Map.of(), 3600)),
                "The access token was not issued for this resource");
    }

    @Test
    void aTokenFromAnotherIssuerOnTheSameServerIsRefused() {
        String other = authorizationServer.issueToken("other", "alice", RESOURCE, Map.of(), 3600).serialize();
        assertInvalidToken(resourceServer.authenticate("Bearer " + other),
                "The access token's issuer is not accepted");
    }

    @Test
    void aTokenSignedWithAnotherKeyUnderTheIssuersKeyIdIsRefused() throws Exception {
        SignedJWT genuine = SignedJWT.parse(validToken());
        RSAKey forger = new RSAKeyGenerator(2048).keyID(genuine.getHeader().getKeyID()).generate();
        SignedJWT forged = new SignedJWT(genuine.getHeader(), genuine.getJWTClaimsSet());
        forged.sign(new RSASSASigner(forger));

        assertInvalidToken(resourceServer.authenticate("Bearer " + forged.serialize()),
                "The access token's signature does not verify");
    }

    @Test
    void anUnsignedTokenIsRefused() throws Exception {
        JWTClaimsSet claims = SignedJWT.parse(validToken()).getJWTClaimsSet();
        String unsigned = new PlainJWT(claims).serialize();
        assertThat(unsigned).endsWith(".");

        assertInvalidToken(resourceServer.authenticate("Bearer " + unsigned), "The access token is not signed");
    }

    @Test
    void aTokenSignedWithHmacUnderTheIssuersPublicKeyIsRefused() throws Exception {
        SignedJWT genuine = SignedJWT.parse(validToken());
        RSAKey published = (RSAKey) JWKSet.load(URI.create(issuer + "/jwks").toURL())
                .getKeyByKeyId(genuine.getHeader().getKeyID());
        RSAPublicKey publicKey = published.toRSAPublicKey();
        List<byte[]> secrets = List.of(publicKey.getEncoded(), ("-----BEGIN PUBLIC KEY-----\n"
                + java.util.Base64.getMimeEncoder().encodeToString(publicKey.getEncoded())
                + "\n-----END PUBLIC KEY-----\n").getBytes(StandardCharsets.US_ASCII), published.toJSONString()
                .getBytes(StandardCharsets.UTF_8));
        for (byte[] secret : secrets) {
            SignedJWT confused = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.HS256)
                    .keyID(genuine.getHeader().getKeyID()).build(), genuine.getJWTClaimsSet());
            confused.sign(new MACSigner(secret));

            assertInvalidToken(resourceServer.authenticate("Bearer " + confused.serialize()),
                    "The access token's signature does not verify");
        }
    }

    @Test
    void aTokenWithoutAScopeTheOperationNeedsGetsA403NamingTheScopesToAskFor() {
        AccessPrincipal principal = ((AuthOutcome.Authenticated) resourceServer.authenticate(
                "Bearer " + validToken())).principal();

        assertThat(resourceServer.authorize(principal, Set.of("users:read")))
                .isEqualTo(new AuthOutcome.Authenticated(principal));
        AuthOutcome.Challenge challenge = challenge(resourceServer.authorize(principal, List.of("users:write")));
        assertThat(challenge.status()).isEqualTo(403);
        assertThat(challenge.error()).isEqualTo("insufficient_scope");
        assertThat(challenge.wwwAuthenticate()).isEqualTo("Bearer error=\"insufficient_scope\", "
                + "scope=\"users:read users:write\", resource_metadata=\"" + METADATA + "\", "
                + "error_description=\"Needs the scope users:write\"");
    }

    @Test
    void scopesEveryRequestNeedsAreCheckedAtAuthenticationAndNamedInThe401() {
        try (ResourceServer strict = ResourceServer.builder(RESOURCE).authorizationServer(issuer)
                .scopesSupported("users:read", "users:write").requiredScopes("users:write").build()) {
            AuthOutcome.Challenge missing = challenge(strict.authenticate(null));
            assertThat(missing.wwwAuthenticate()).isEqualTo("Bearer scope=\"users:write\", resource_metadata=\""
                    + METADATA + "\"");

            AuthOutcome.Challenge tooSmall = challenge(strict.authenticate("Bearer " + validToken()));
            assertThat(tooSmall.status()).isEqualTo(403);
            assertThat(tooSmall.wwwAuthenticate()).contains("scope=\"users:read users:write\"");

            String enough = token(RESOURCE, Map.of("scope", "users:read users:write"), 3600);
            assertThat(strict.authenticate("Bearer " + enough)).isInstanceOf(AuthOutcome.Authenticated.class);
        }
    }

    @Test
    void aTokenValidWhenCachedIsRefusedOnceItExpires() throws Exception {
        String shortLived = token(RESOURCE, Map.of(), 3);
        try (ResourceServer noSkew = ResourceServer.builder(RESOURCE).authorizationServer(issuer)
                .clockSkew(java.time.Duration.ZERO).build()) {
            assertThat(noSkew.authenticate("Bearer " + shortLived)).isInstanceOf(AuthOutcome.Authenticated.class);
            Date exp = SignedJWT.parse(shortLived).getJWTClaimsSet().getExpirationTime();
            Thread.sleep(Math.max(0, exp.getTime() - System.currentTimeMillis()) + 1100);

            assertThat(challenge(noSkew.authenticate("Bearer " + shortLived)).error()).isEqualTo("invalid_token");
        }
    }

    @Test
    void anRfc8693TokenExchangeGetsADownstreamTokenForTheCallerFromTheAuthorizationServer() throws Exception {
        String tokenEndpoint = authorizationServer.tokenEndpointUrl("default").toString();
        try (ResourceServer exchanging = ResourceServer.builder(RESOURCE).authorizationServer(issuer)
                .tokenExchange(tokenEndpoint, "tern", "secret").httpTimeout(java.time.Duration.ofSeconds(30))
                .build()) {
            String inbound = validToken();
            AccessPrincipal alice = ((AuthOutcome.Authenticated) exchanging.authenticate("Bearer " + inbound))
                    .principal();

            TokenExchange.DownstreamToken downstream = exchanging.exchange(alice,
                    URI.create("https://orders.example.test/api"), Set.of("orders:read"));

            assertThat(downstream.accessToken()).isNotEqualTo(inbound);
            assertThat(downstream.tokenType()).isEqualToIgnoringCase("Bearer");
            assertThat(downstream.expiresAt()).isAfter(java.time.Instant.now());
            JWTClaimsSet claims = SignedJWT.parse(downstream.accessToken()).getJWTClaimsSet();
            assertThat(claims.getAudience()).containsExactly("https://orders.example.test/api");
            assertThat(claims.getSubject()).isEqualTo("alice");
            assertThat(claims.getIssuer()).isEqualTo(issuer);
            var request = authorizationServer.takeRequest(10, java.util.concurrent.TimeUnit.SECONDS);
            for (int i = 0; i < 20 && request != null && !request.getPath().endsWith("/token"); i++) {
                request = authorizationServer.takeRequest(10, java.util.concurrent.TimeUnit.SECONDS);
            }
            assertThat(request).as("the token request").isNotNull();
            assertThat(request.getBody().readUtf8()).contains(
                    "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange",
                    "subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aaccess_token",
                    "scope=orders%3Aread");
            assertThat(request.getHeaders().get("Authorization")).isEqualTo("Basic dGVybjpzZWNyZXQ=");
        }
        try (ResourceServer refused = ResourceServer.builder(RESOURCE).authorizationServer(issuer)
                .tokenExchange(issuer + "/no-such-endpoint", "tern", "secret")
                .httpTimeout(java.time.Duration.ofSeconds(30)).build()) {
            AccessPrincipal alice = ((AuthOutcome.Authenticated) refused.authenticate("Bearer " + validToken()))
                    .principal();
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> refused.exchange(alice,
                    URI.create("https://orders.example.test/api"), Set.of())).isInstanceOf(RuntimeException.class)
                    .hasMessageContaining("token exchange at " + issuer + "/no-such-endpoint");
        }
    }
}
