package dev.tern.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import dev.tern.protocol.Json;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import no.nav.security.mock.oauth2.MockOAuth2Server;
import tools.jackson.databind.JsonNode;

/**
 * A tool of a running {@code tern serve --auth-token-exchange} process gets a token for a downstream service on its
 * caller's behalf from a real authorization server (RFC 8693), without the caller's token or the client secret ever
 * leaving for anywhere else or showing in the logs.
 */
class TokenExchangeCommandLineTest {
    private static final String SECRET = "s3cret-of-tern";
    private static final String DOWNSTREAM = "https://orders.example.test/api";

    private static MockOAuth2Server authorizationServer;
    private static TernProcess tern;
    private static String resource;

    @BeforeAll
    static void start() throws Exception {
        authorizationServer = new MockOAuth2Server();
        authorizationServer.start(InetAddress.getLoopbackAddress(), 0);
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        resource = "http://127.0.0.1:" + port + "/mcp";
        tern = TernProcess.http(port, "downstream", "--host", "127.0.0.1",
                "--auth-issuer", authorizationServer.issuerUrl("default").toString(), "--auth-audience", resource,
                "--auth-token-exchange", authorizationServer.tokenEndpointUrl("default").toString(),
                "--auth-client-id", "tern", "--auth-client-secret", SECRET);
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (tern != null) {
                tern.close();
            }
        } finally {
            authorizationServer.shutdown();
        }
    }

    @Test
    void aToolGetsATokenForTheDownstreamServiceIssuedToItsCaller() throws Exception {
        String inbound = authorizationServer.issueToken("default", "alice", resource,
                Map.of("scope", "users:read"), 3600).serialize();

        HttpResponse<String> reply = call("Bearer " + inbound);

        assertThat(reply.statusCode()).as(reply.body()).isEqualTo(200);
        JsonNode shown = Json.mapper().readTree(reply.body()).path("result").path("structuredContent");
        JsonNode audience = shown.path("aud");
        assertThat(audience.isArray() ? audience.get(0).asString() : audience.asString()).isEqualTo(DOWNSTREAM);
        assertThat(shown.path("sub").asString()).isEqualTo("alice");
        assertThat(shown.path("iss").asString()).isEqualTo(authorizationServer.issuerUrl("default").toString());
        assertThat(reply.body()).doesNotContain(inbound);
        assertThat(tern.stderr()).doesNotContain(inbound).doesNotContain(SECRET);
    }

    @Test
    void withoutATokenTheToolIsNotReached() throws Exception {
        assertThat(call(null).statusCode()).isEqualTo(401);
    }

    private static HttpResponse<String> call(String authorization) throws Exception {
        String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"downstream_token\","
                + "\"arguments\":{\"audience\":\"" + DOWNSTREAM + "\"},\"_meta\":{"
                + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}";
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(resource)).timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream").header("MCP-Protocol-Version", "2026-07-28")
                .header("Mcp-Method", "tools/call").header("Mcp-Name", "downstream_token");
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build()) {
            return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
        }
    }
}
