package dev.tern.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.nimbusds.jose.util.JSONObjectUtils;

/** What the resource server answers without asking an authorization server. */
class ResourceServerTest {
    private static ResourceServer build(String resource) {
        return ResourceServer.builder(resource).authorizationServer("https://auth.example.test")
                .authorizationServer("https://login.example.test/tenant1")
                .scopesSupported("users:read", "users:write").build();
    }

    @Test
    void theMetadataDocumentNamesTheResourceItsAuthorizationServersScopesAndTheHeaderMethodOnly() throws Exception {
        try (ResourceServer auth = build("HTTPS://MCP.Example.test/mcp")) {
            ProtectedResourceMetadata metadata = auth.metadata();
            byte[] bytes = new byte[metadata.json().remaining()];
            metadata.json().get(bytes);
            Map<String, Object> document = JSONObjectUtils.parse(new String(bytes, StandardCharsets.UTF_8));

            assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo("{"
                    + "\"resource\":\"https://mcp.example.test/mcp\","
                    + "\"authorization_servers\":[\"https://auth.example.test\",\"https://login.example.test/tenant1\"],"
                    + "\"scopes_supported\":[\"users:read\",\"users:write\"],"
                    + "\"bearer_methods_supported\":[\"header\"]}");
            assertThat(document).containsEntry("bearer_methods_supported", List.of("header"));
            assertThat(metadata.paths()).containsExactly("/.well-known/oauth-protected-resource/mcp",
                    "/.well-known/oauth-protected-resource");
            assertThat(metadata.uri()).isEqualTo(
                    URI.create("https://mcp.example.test/.well-known/oauth-protected-resource/mcp"));
            assertThat(auth.resource()).isEqualTo("https://mcp.example.test/mcp");
            assertThat(metadata.json().isReadOnly()).isTrue();
        }
    }

    @Test
    void aResourceAtTheRootHasItsMetadataAtTheRootOnly() {
        try (ResourceServer auth = build("https://mcp.example.test")) {
            assertThat(auth.metadata().paths()).containsExactly("/.well-known/oauth-protected-resource");
            assertThat(auth.metadata().uri())
                    .isEqualTo(URI.create("https://mcp.example.test/.well-known/oauth-protected-resource"));
        }
    }

    @Test
    void anAccessTokenInTheQueryStringIsRefusedWithInvalidRequest() {
        try (ResourceServer auth = build("https://mcp.example.test/mcp")) {
            for (String query : new String[] {"access_token=abc", "a=1&access_token=abc", "access%5Ftoken=x",
                    "access_token"}) {
                AuthOutcome.Challenge challenge = auth.refuseQueryToken(query).orElseThrow();
                assertThat(challenge.status()).as(query).isEqualTo(400);
                assertThat(challenge.wwwAuthenticate()).isEqualTo("Bearer error=\"invalid_request\", "
                        + "resource_metadata=\"https://mcp.example.test/.well-known/oauth-protected-resource/mcp\", "
                        + "error_description=\"Access tokens are accepted in the Authorization header only\"");
            }
            for (String query : new String[] {null, "", "id=42", "xaccess_token=1", "q=access_token", "%zz=1"}) {
                assertThat(auth.refuseQueryToken(query)).as(query).isEmpty();
            }
        }
    }

    @Test
    void theBuilderRefusesWhatWouldMakeTheServerUnsafe() {
        assertThatThrownBy(() -> ResourceServer.builder("http://mcp.example.test/mcp"))
                .hasMessageContaining("resource: http://mcp.example.test/mcp (expected:");
        assertThatThrownBy(() -> ResourceServer.builder("https://mcp.example.test/mcp#frag"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ResourceServer.builder("https://mcp.example.test/mcp").build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("authorizationServer");
        assertThatThrownBy(() -> ResourceServer.builder("https://mcp.example.test/mcp")
                .authorizationServer("http://auth.example.test")).hasMessageContaining("issuer");
        for (String algorithm : new String[] {"none", "HS256", "HS512"}) {
            assertThatThrownBy(() -> ResourceServer.builder("https://mcp.example.test/mcp").algorithms(algorithm))
                    .as(algorithm).hasMessageContaining("algorithm: " + algorithm);
        }
        assertThatThrownBy(() -> ResourceServer.builder("https://mcp.example.test/mcp").scopesSupported("a b"))
                .hasMessageContaining("scope: a b");
        assertThatThrownBy(() -> ResourceServer.builder("https://mcp.example.test/mcp").scopesSupported("a\"b"))
                .hasMessageContaining("scope:");
        assertThat(ResourceServer.builder("http://127.0.0.1:8080/mcp").authorizationServer("http://[::1]:9000"))
                .as("plain http on loopback is allowed for development").isNotNull();
    }

    @Test
    void theMetadataLocationsOfAnIssuerFollowTheSpecsOrder() {
        assertThat(IssuerKeys.metadataLocations("https://auth.example.test")).containsExactly(
                URI.create("https://auth.example.test/.well-known/oauth-authorization-server"),
                URI.create("https://auth.example.test/.well-known/openid-configuration"));
        assertThat(IssuerKeys.metadataLocations("https://auth.example.test/tenant1")).containsExactly(
                URI.create("https://auth.example.test/.well-known/oauth-authorization-server/tenant1"),
                URI.create("https://auth.example.test/.well-known/openid-configuration/tenant1"),
                URI.create("https://auth.example.test/tenant1/.well-known/openid-configuration"));
    }

    @Test
    void anErrorDescriptionCannotBreakOutOfItsQuotedString() {
        try (ResourceServer auth = ResourceServer.builder("https://mcp.example.test/mcp")
                .authorizationServer("https://auth.example.test")
                .verifier("Bearer", (credentials, certificate) -> {
                    throw new InvalidTokenException("bad \"token\"\\ é\r\n");
                }).build()) {
            AuthOutcome.Challenge challenge = (AuthOutcome.Challenge) auth.authenticate("Bearer abc");
            assertThat(challenge.wwwAuthenticate()).endsWith("error_description=\"bad ?token?? ???\"");
        }
    }

    @Test
    void aVerifiedClientCertificateIsThePrincipalOfARequestWithoutATokenOnlyWhenAllowed() throws Exception {
        java.security.cert.X509Certificate certificate;
        try (var in = ResourceServerTest.class.getResourceAsStream("client-a.pem")) {
            certificate = com.nimbusds.jose.util.X509CertUtils.parse(new String(in.readAllBytes(),
                    StandardCharsets.US_ASCII));
        }
        try (ResourceServer off = build("https://mcp.example.test/mcp");
                ResourceServer bySubject = ResourceServer.builder("https://mcp.example.test/mcp")
                        .authorizationServer("https://auth.example.test").requiredScopes("users:read")
                        .clientCertificates(CertificateIdentity.SUBJECT, "users:read")
                        .tokenExchange((token, who, audience, scopes) -> new TokenExchange.DownstreamToken("down",
                                "Bearer", null)).build();
                ResourceServer byDns = ResourceServer.builder("https://mcp.example.test/mcp")
                        .authorizationServer("https://auth.example.test")
                        .clientCertificates(CertificateIdentity.DNS).build();
                ResourceServer scopeless = ResourceServer.builder("https://mcp.example.test/mcp")
                        .authorizationServer("https://auth.example.test").requiredScopes("users:read")
                        .clientCertificates(CertificateIdentity.SUBJECT).build()) {
            assertThat(((AuthOutcome.Challenge) off.authenticate(null, certificate)).status())
                    .as("certificates are no identity by default").isEqualTo(401);

            AccessPrincipal principal = ((AuthOutcome.Authenticated) bySubject.authenticate(null, certificate))
                    .principal();
            assertThat(principal.subject()).isEqualTo("CN=client-a.test");
            assertThat(principal.issuer()).isEqualTo("CN=client-a.test");
            assertThat(principal.scopes()).containsExactly("users:read");
            assertThat(principal.expiresAt()).isEqualTo(certificate.getNotAfter().toInstant());
            assertThat(bySubject.authenticateWithoutBlocking("", certificate)).get()
                    .isInstanceOf(AuthOutcome.Authenticated.class);
            assertThat(((AuthOutcome.Challenge) bySubject.authenticate(null, null)).status())
                    .as("no certificate").isEqualTo(401);
            assertThat(((AuthOutcome.Challenge) bySubject.authenticate("Bearer not-a-jwt", certificate)).error())
                    .as("a token is judged by itself").isEqualTo("invalid_token");

            assertThat(((AuthOutcome.Challenge) byDns.authenticate(null, certificate)).status())
                    .as("a certificate without a DNS name").isEqualTo(401);
            assertThat(((AuthOutcome.Challenge) scopeless.authenticate(null, certificate)).status())
                    .as("a certificate principal without the required scope").isEqualTo(403);
            assertThatThrownBy(() -> bySubject.exchange(principal, URI.create("https://orders.example.test"),
                    java.util.Set.of())).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("holds no token");
        }
        assertThat(CertificateIdentity.parse(" Dns ")).isEqualTo(CertificateIdentity.DNS);
        assertThatThrownBy(() -> CertificateIdentity.parse("cn")).hasMessageContaining("expected: subject, dns");
    }

    @Test
    void theDescriptionNamesEverySettingButNeverASecret() {
        try (ResourceServer plain = build("https://mcp.example.test/mcp");
                ResourceServer full = ResourceServer.builder("https://mcp.example.test/mcp")
                        .authorizationServer("https://auth.example.test").requiredScopes("users:read")
                        .introspection("https://auth.example.test/introspect", "tern", "intro-secret")
                        .tokenExchange("https://auth.example.test/token", "tern", "exchange-secret")
                        .clientCertificates(CertificateIdentity.URI, "users:read").build()) {
            assertThat(plain.toString()).isEqualTo("ResourceServer[resource=https://mcp.example.test/mcp, "
                    + "authorizationServers=[https://auth.example.test, https://login.example.test/tenant1], "
                    + "scopesSupported=[users:read, users:write], requiredScopes=[], introspection=off, "
                    + "tokenExchange=off, clientCertificates=off, schemes=[bearer]]");
            assertThat(full.toString()).contains("introspection=https://auth.example.test/introspect as client tern",
                    "tokenExchange=https://auth.example.test/token as client tern",
                    "clientCertificates=uri [users:read]").doesNotContain("secret");
        }
    }
}
