package dev.tern.transport.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.nimbusds.jose.util.X509CertUtils;

import dev.tern.auth.CertificateIdentity;
import dev.tern.auth.ResourceServer;
import dev.tern.protocol.Json;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.server.McpServer;
import dev.tern.server.ToolSpec;
import dev.tern.testing.TestCa;

import no.nav.security.mock.oauth2.MockOAuth2Server;

/**
 * Client certificates as identity over real mutual TLS: a request without a token is the principal its certificate
 * names, where the server allows it, and a certificate-bound access token (RFC 8705 {@code cnf.x5t#S256}, issued by
 * mock-oauth2-server) is good only over a connection presenting that very certificate.
 */
class CertificateIdentityTest {
    private static TestCa ca;
    private static TestCa.Issued billing;
    private static TestCa.Issued reports;
    private static MockOAuth2Server authorizationServer;
    private static ResourceServer byName;
    private static ResourceServer tokensOnly;
    private static McpServer server;
    private static HttpServerTransport certificates;
    private static HttpServerTransport tokens;

    @BeforeAll
    static void start() throws Exception {
        ca = TestCa.create("Tern Test CA");
        TestCa.Issued serverCertificate = ca.server("localhost");
        billing = ca.client("billing.example");
        reports = ca.client("reports.example");
        authorizationServer = new MockOAuth2Server();
        authorizationServer.start(InetAddress.getLoopbackAddress(), 0);
        String issuer = authorizationServer.issuerUrl("default").toString();
        int certificatesPort = freePort();
        int tokensPort = freePort();
        byName = ResourceServer.builder("https://127.0.0.1:" + certificatesPort + "/mcp").authorizationServer(issuer)
                .requiredScopes("users:read").clientCertificates(CertificateIdentity.DNS, "users:read")
                .httpTimeout(Duration.ofSeconds(30)).build();
        tokensOnly = ResourceServer.builder("https://127.0.0.1:" + tokensPort + "/mcp").authorizationServer(issuer)
                .requiredScopes("users:read").httpTimeout(Duration.ofSeconds(30)).build();
        server = McpServer.builder().info("who", "1.0.0")
                .tool(ToolSpec.builder("whoami").description("Who is calling.")
                        .handler((ctx, args) -> CallToolResult.text(ctx.caller().name() + " | "
                                + ctx.caller().scopes()))
                        .build())
                .build();
        certificates = HttpServerTransport.builder(server).host("127.0.0.1").port(certificatesPort)
                .tls(t -> t.certificate(serverCertificate.certificate(), serverCertificate.key())
                        .clientAuth(HttpOptions.Tls.ClientAuth.OPTIONAL).trust(ca.certificate()))
                .auth(byName).build().start();
        tokens = HttpServerTransport.builder(server).host("127.0.0.1").port(tokensPort)
                .tls(t -> t.certificate(serverCertificate.certificate(), serverCertificate.key())
                        .clientAuth(HttpOptions.Tls.ClientAuth.OPTIONAL).trust(ca.certificate()))
                .auth(tokensOnly).build().start();
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable c : new AutoCloseable[] {certificates, tokens, server, byName, tokensOnly, ca}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        if (authorizationServer != null) {
            authorizationServer.shutdown();
        }
    }

    private static int freePort() throws Exception {
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return free.getLocalPort();
        }
    }

    /** A tools/call of whoami over a new connection presenting {@code identity} (none when {@code null}). */
    private static HttpResponse<String> whoami(HttpServerTransport transport, TestCa.Issued identity,
            String authorization) throws Exception {
        Map<String, String> headers = new LinkedHashMap<>(Mcp.modernHeaders("tools/call", "whoami"));
        if (authorization != null) {
            headers.put("Authorization", authorization);
        }
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(transport.url())).timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(Mcp.request(1, "tools/call",
                        Mcp.meta(Mcp.toolCall("whoami", null)))))
                .header("Content-Type", "application/json").header("Accept", Mcp.ACCEPT);
        headers.forEach(b::header);
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .sslContext(ca.clientContext(identity)).connectTimeout(Duration.ofSeconds(10)).build()) {
            return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    private static String text(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return Json.mapper().readTree(response.body()).path("result").path("content").path(0).path("text")
                .asString();
    }

    private static String boundToken(String resource, TestCa.Issued certificate) {
        String thumbprint = X509CertUtils.computeSHA256Thumbprint(certificate.x509()).toString();
        return authorizationServer.issueToken("default", "alice", resource,
                Map.of("scope", "users:read", "cnf", Map.of("x5t#S256", thumbprint)), 3600).serialize();
    }

    @Test
    void aRequestWithoutATokenIsThePrincipalItsCertificateNamesWithTheGrantedScopes() throws Exception {
        assertThat(text(whoami(certificates, billing, null)))
                .isEqualTo("CN=Tern Test CA billing.example | [users:read]");
        assertThat(text(whoami(certificates, reports, null)))
                .isEqualTo("CN=Tern Test CA reports.example | [users:read]");
    }

    @Test
    void withoutACertificateOrWhereCertificatesAreNoIdentityARequestWithoutATokenIs401() throws Exception {
        HttpResponse<String> anonymous = whoami(certificates, null, null);
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.headers().firstValue("www-authenticate").orElseThrow()).startsWith("Bearer scope=");

        assertThat(whoami(tokens, billing, null).statusCode()).as("certificates not allowed as identity")
                .isEqualTo(401);
    }

    @Test
    void aTokenIsJudgedByItselfEvenOverAConnectionWithACertificate() throws Exception {
        String token = authorizationServer.issueToken("default", "alice", certificates.url(),
                Map.of("scope", "users:read"), 3600).serialize();
        assertThat(text(whoami(certificates, billing, "Bearer " + token)))
                .isEqualTo(authorizationServer.issuerUrl("default") + " alice | [users:read]");

        HttpResponse<String> bad = whoami(certificates, billing, "Bearer not-a-jwt");
        assertThat(bad.statusCode()).as("a bad token does not fall back to the certificate").isEqualTo(401);
        assertThat(bad.headers().firstValue("www-authenticate").orElseThrow())
                .startsWith("Bearer error=\"invalid_token\"");
    }

    @Test
    void aCertificateBoundTokenIsAcceptedOnlyOverAConnectionPresentingThatCertificate() throws Exception {
        String bound = "Bearer " + boundToken(tokens.url(), billing);

        assertThat(text(whoami(tokens, billing, bound)))
                .isEqualTo(authorizationServer.issuerUrl("default") + " alice | [users:read]");
        // again with the same certificate: now the token comes from the verified-token cache
        assertThat(whoami(tokens, billing, bound).statusCode()).isEqualTo(200);
        for (TestCa.Issued other : new TestCa.Issued[] {reports, null}) {
            HttpResponse<String> refused = whoami(tokens, other, bound);
            assertThat(refused.statusCode()).as("over a connection with %s", other).isEqualTo(401);
            assertThat(refused.headers().firstValue("www-authenticate").orElseThrow())
                    .as("over a connection with %s", other).startsWith("Bearer error=\"invalid_token\"")
                    .contains(other == null ? "bound to a client certificate the request lacks"
                            : "bound to another client certificate");
        }
    }
}
