package dev.tern.it;

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

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;

import dev.tern.protocol.Json;

import tools.jackson.databind.JsonNode;

import no.nav.security.mock.oauth2.MockOAuth2Server;

/**
 * SECURITY.md rows 37 to 40 against a running {@code tern serve --auth-issuer} process, with tokens from a real
 * authorization server (mock-oauth2-server on 127.0.0.1): no token, malformed, expired, foreign, forged and unsigned
 * tokens, a token in the query, a scope too small, and authentication on every request of a session.
 */
class OAuthResourceServerTest {
    private static MockOAuth2Server authorizationServer;
    private static TernProcess tern;
    private static String resource;
    private static String metadata;
    private static final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    @BeforeAll
    static void start() throws Exception {
        authorizationServer = new MockOAuth2Server();
        authorizationServer.start(InetAddress.getLoopbackAddress(), 0);
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        resource = "http://127.0.0.1:" + port + "/mcp";
        metadata = "http://127.0.0.1:" + port + "/.well-known/oauth-protected-resource/mcp";
        tern = TernProcess.http(port, "user-directory", "--auth-issuer", issuer());
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

    private static String issuer() {
        return authorizationServer.issuerUrl("default").toString();
    }

    private static String token(String audience, String scope, long expirySeconds) {
        return authorizationServer.issueToken("default", "alice", audience, Map.of("scope", scope), expirySeconds)
                .serialize();
    }

    private static String good() {
        return token(resource, "users:read", 3600);
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpRequest.Builder getUser(String authorization) {
        String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"get_user\","
                + "\"arguments\":{\"id\":\"42\"},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}";
        HttpRequest.Builder b = post(resource, body).header("MCP-Protocol-Version", "2026-07-28")
                .header("Mcp-Method", "tools/call").header("Mcp-Name", "get_user");
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return b;
    }

    private static HttpRequest.Builder post(String url, String body) {
        return HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream");
    }

    private static String challenge(HttpResponse<String> response) {
        return response.headers().firstValue("www-authenticate").orElseThrow();
    }

    @Test
    void row37AMissingOrMalformedAuthorizationIs401PointingToTheMetadata() throws Exception {
        for (String header : new String[] {null, "Basic YWxpY2U6c2VjcmV0", "Bearer", "Bearer a b"}) {
            HttpResponse<String> response = send(getUser(header));
            assertThat(response.statusCode()).as("Authorization: %s", header).isEqualTo(401);
            assertThat(challenge(response)).as("Authorization: %s", header).startsWith("Bearer ")
                    .contains("scope=\"users:read\"", "resource_metadata=\"" + metadata + "\"");
        }

        HttpResponse<String> document = send(HttpRequest.newBuilder(URI.create(metadata)).GET());
        assertThat(document.statusCode()).isEqualTo(200);
        JsonNode json = Json.mapper().readTree(document.body());
        assertThat(json.path("resource").asString()).isEqualTo(resource);
        assertThat(json.path("authorization_servers").path(0).asString()).isEqualTo(issuer());
        assertThat(json.path("scopes_supported").toString()).isEqualTo("[\"users:read\"]");
    }

    @Test
    void row38ExpiredForeignForgedAndUnsignedTokensAre401InvalidToken() throws Exception {
        SignedJWT genuine = SignedJWT.parse(good());
        RSAKey forger = new RSAKeyGenerator(2048).keyID(genuine.getHeader().getKeyID()).generate();
        SignedJWT forged = new SignedJWT(genuine.getHeader(), genuine.getJWTClaimsSet());
        forged.sign(new RSASSASigner(forger));
        SignedJWT hmac = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.HS256).keyID(genuine.getHeader().getKeyID())
                .build(), genuine.getJWTClaimsSet());
        hmac.sign(new MACSigner(new byte[32]));

        Map<String, String> bad = new LinkedHashMap<>();
        bad.put("expired", token(resource, "users:read", -300));
        bad.put("wrong audience", token("http://127.0.0.1:1/mcp", "users:read", 3600));
        bad.put("wrong issuer", authorizationServer.issueToken("other", "alice", resource,
                Map.of("scope", "users:read"), 3600).serialize());
        bad.put("bad signature", forged.serialize());
        bad.put("alg none", new PlainJWT(genuine.getJWTClaimsSet()).serialize());
        bad.put("HS256", hmac.serialize());
        for (var entry : bad.entrySet()) {
            HttpResponse<String> response = send(getUser("Bearer " + entry.getValue()));
            assertThat(response.statusCode()).as(entry.getKey()).isEqualTo(401);
            assertThat(challenge(response)).as(entry.getKey()).startsWith("Bearer error=\"invalid_token\"")
                    .contains("resource_metadata=\"" + metadata + "\"");
        }

        HttpResponse<String> inQuery = send(HttpRequest.newBuilder(URI.create(resource.replace("/mcp",
                "/openapi.json?access_token=" + good()))).GET());
        assertThat(inQuery.statusCode()).as("token in the query").isEqualTo(400);
        assertThat(challenge(inQuery)).startsWith("Bearer error=\"invalid_request\"");

        HttpResponse<String> served = send(getUser("Bearer " + good()));
        assertThat(served.statusCode()).as(served.body()).isEqualTo(200);
        assertThat(served.body()).contains("\"id\":\"42\"");
    }

    @Test
    void row39AValidTokenWithoutTheToolsScopeIs403InsufficientScope() throws Exception {
        HttpResponse<String> response = send(getUser("Bearer " + token(resource, "profile", 3600)));

        assertThat(response.statusCode()).isEqualTo(403);
        assertThat(challenge(response)).startsWith("Bearer error=\"insufficient_scope\", scope=\"users:read\", "
                + "resource_metadata=\"" + metadata + "\"");
        HttpResponse<String> rest = send(post(resource.replace("/mcp", "/rest/tools/get_user"), "{\"id\":\"42\"}")
                .header("Authorization", "Bearer " + token(resource, "profile", 3600)));
        assertThat(rest.statusCode()).as("the REST façade").isEqualTo(403);
    }

    @Test
    void row40EveryRequestOfASessionIsAuthenticatedAndTheSessionBelongsToItsPrincipal() throws Exception {
        String init = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";
        HttpResponse<String> opened = send(post(resource, init).header("Authorization", "Bearer " + good()));
        assertThat(opened.statusCode()).as(opened.body()).isEqualTo(200);
        String session = opened.headers().firstValue("mcp-session-id").orElseThrow();
        String ping = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}";

        for (String header : new String[] {null, "Bearer " + token(resource, "users:read", -300)}) {
            HttpRequest.Builder postPing = post(resource, ping).header("Mcp-Session-Id", session)
                    .header("MCP-Protocol-Version", "2025-11-25");
            HttpRequest.Builder stream = HttpRequest.newBuilder(URI.create(resource)).GET()
                    .header("Accept", "text/event-stream").header("Mcp-Session-Id", session);
            HttpRequest.Builder delete = HttpRequest.newBuilder(URI.create(resource)).DELETE()
                    .header("Mcp-Session-Id", session);
            for (HttpRequest.Builder request : new HttpRequest.Builder[] {postPing, stream, delete}) {
                if (header != null) {
                    request.header("Authorization", header);
                }
                assertThat(send(request).statusCode()).as("%s with %s", request.build().method(), header)
                        .isEqualTo(401);
            }
        }
        String bob = authorizationServer.issueToken("default", "bob", resource, Map.of("scope", "users:read"), 3600)
                .serialize();
        assertThat(send(post(resource, ping).header("Mcp-Session-Id", session)
                .header("MCP-Protocol-Version", "2025-11-25").header("Authorization", "Bearer " + bob)).statusCode())
                .as("another principal's valid token").isEqualTo(404);
        HttpResponse<String> owner = send(post(resource, ping).header("Mcp-Session-Id", session)
                .header("MCP-Protocol-Version", "2025-11-25").header("Authorization", "Bearer " + good()));
        assertThat(owner.statusCode()).as(owner.body()).isEqualTo(200);
    }
}
