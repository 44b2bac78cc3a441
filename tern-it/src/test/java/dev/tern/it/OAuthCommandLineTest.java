package dev.tern.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.nimbusds.jose.util.X509CertUtils;

import dev.tern.testing.TestCa;

import no.nav.security.mock.oauth2.MockOAuth2Server;

/**
 * The authorization settings of {@code tern serve} beyond the issuer, against a running process over mutual TLS with
 * mock-oauth2-server as the authorization server: opaque tokens through RFC 7662 introspection with the server's
 * client credentials (the secret from the config file), client certificates as principals, certificate-bound tokens,
 * and the token exchange announced without its secret.
 */
class OAuthCommandLineTest {
    private static final String SECRET = "s3cret-of-tern";

    private static MockOAuth2Server authorizationServer;
    private static com.sun.net.httpserver.HttpServer introspection;
    private static final java.util.List<String> introspectionCredentials = new CopyOnWriteArrayList<>();
    private static TestCa ca;
    private static TestCa.Issued billing;
    private static TestCa.Issued reports;
    private static TernProcess tern;
    private static String resource;

    @BeforeAll
    static void start() throws Exception {
        authorizationServer = new MockOAuth2Server();
        authorizationServer.start(InetAddress.getLoopbackAddress(), 0);
        String issuer = authorizationServer.issuerUrl("default").toString();
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        resource = "https://127.0.0.1:" + port + "/mcp";
        // The authorization server's RFC 7662 endpoint for its opaque tokens (mock-oauth2-server issues only JWTs).
        introspection = com.sun.net.httpserver.HttpServer.create(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        introspection.createContext("/introspect", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            introspectionCredentials.add(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
            String answer = body.contains("token=opaque-alice")
                    ? "{\"active\":true,\"sub\":\"alice\",\"iss\":\"" + issuer + "\",\"aud\":\"" + resource
                            + "\",\"scope\":\"users:read\",\"exp\":" + (System.currentTimeMillis() / 1000 + 3600) + "}"
                    : "{\"active\":false}";
            byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        introspection.start();
        ca = TestCa.create("Tern Test CA");
        TestCa.Issued server = ca.server("localhost");
        billing = ca.client("billing.example");
        reports = ca.client("reports.example");
        Path config = Files.createTempFile(ca.dir(), "tern", ".properties");
        Files.writeString(config, "auth-client-secret=" + SECRET + "\n");
        tern = TernProcess.http(port, "user-directory", "--host", "127.0.0.1", "--tls",
                "--cert", server.certificate().toString(), "--key", server.key().toString(),
                "--tls-client-auth", "optional", "--tls-trust", ca.certificate().toString(),
                "--auth-issuer", issuer,
                "--auth-introspection", "http://127.0.0.1:" + introspection.getAddress().getPort() + "/introspect",
                "--auth-token-exchange", authorizationServer.tokenEndpointUrl("default").toString(),
                "--auth-client-id", "tern", "--config", config.toString(),
                "--auth-client-certificates", "dns", "--auth-client-certificate-scopes", "users:read");
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (tern != null) {
                tern.close();
            }
        } finally {
            if (introspection != null) {
                introspection.stop(0);
            }
            if (ca != null) {
                ca.close();
            }
            authorizationServer.shutdown();
        }
    }

    private static HttpResponse<String> getUser(TestCa.Issued identity, String authorization) throws Exception {
        String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"get_user\","
                + "\"arguments\":{\"id\":\"42\"},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}";
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(resource)).timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream").header("MCP-Protocol-Version", "2026-07-28")
                .header("Mcp-Method", "tools/call").header("Mcp-Name", "get_user");
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .sslContext(ca.clientContext(identity)).connectTimeout(Duration.ofSeconds(10)).build()) {
            return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    @Test
    void anOpaqueTokenIsIntrospectedWithTheServersClientCredentialsFromTheConfigFile() throws Exception {
        HttpResponse<String> served = getUser(null, "Bearer opaque-alice");
        assertThat(served.statusCode()).as(served.body()).isEqualTo(200);
        assertThat(served.body()).contains("\"id\":\"42\"");
        String basic = "Basic " + java.util.Base64.getEncoder().encodeToString(("tern:" + SECRET)
                .getBytes(StandardCharsets.UTF_8));
        assertThat(introspectionCredentials).contains(basic);

        HttpResponse<String> inactive = getUser(null, "Bearer opaque-mallory");
        assertThat(inactive.statusCode()).isEqualTo(401);
        assertThat(inactive.headers().firstValue("www-authenticate").orElseThrow())
                .startsWith("Bearer error=\"invalid_token\"");
    }

    @Test
    void aClientCertificateIsThePrincipalOfARequestWithoutATokenAndNoCertificateIs401() throws Exception {
        HttpResponse<String> served = getUser(billing, null);
        assertThat(served.statusCode()).as(served.body()).isEqualTo(200);
        assertThat(served.body()).contains("\"id\":\"42\"");

        assertThat(getUser(null, null).statusCode()).isEqualTo(401);
    }

    @Test
    void aCertificateBoundTokenIsRefusedOverAConnectionWithAnotherCertificate() throws Exception {
        String bound = "Bearer " + authorizationServer.issueToken("default", "alice", resource,
                Map.of("scope", "users:read", "cnf", Map.of("x5t#S256",
                        X509CertUtils.computeSHA256Thumbprint(billing.x509()).toString())), 3600).serialize();

        assertThat(getUser(billing, bound).statusCode()).isEqualTo(200);
        HttpResponse<String> refused = getUser(reports, bound);
        assertThat(refused.statusCode()).isEqualTo(401);
        assertThat(refused.headers().firstValue("www-authenticate").orElseThrow())
                .startsWith("Bearer error=\"invalid_token\"").contains("bound to another client certificate");
    }

    @Test
    void theStartupLinesNameTheAuthorizationSettingsButNeverTheSecret() {
        assertThat(tern.stderr()).contains("authorizationServers=[" + authorizationServer.issuerUrl("default") + "]",
                "introspection=http://127.0.0.1:" + introspection.getAddress().getPort() + "/introspect as client tern",
                "tokenExchange=" + authorizationServer.tokenEndpointUrl("default") + " as client tern",
                "clientCertificates=dns [users:read]", "protected resource metadata at ")
                .doesNotContain(SECRET);
    }
}
