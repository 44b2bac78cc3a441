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

import dev.tern.auth.RateLimiter;
import dev.tern.auth.ResourceServer;
import dev.tern.protocol.Json;

import no.nav.security.mock.oauth2.MockOAuth2Server;

/**
 * Tern as an OAuth 2.1 resource server over real HTTP, with tokens from a real authorization server
 * (mock-oauth2-server on 127.0.0.1): which paths need a token, the challenges, and the principal sessions are bound to.
 */
class AuthOverHttpTest {
    private static final String METADATA_PATH = "/.well-known/oauth-protected-resource/mcp";

    private static MockOAuth2Server authorizationServer;
    private static ResourceServer resourceServer;
    private static Served served;
    private static String resource;
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
        resourceServer = ResourceServer.builder(resource)
                .authorizationServer(authorizationServer.issuerUrl("default").toString())
                .scopesSupported("users:read", "users:write")
                .httpTimeout(Duration.ofSeconds(30))
                .build();
        served = new Served(b -> b.port(port).restFacade(true).auth(resourceServer,
                RateLimiter.builder().perSecond(0.01).burst(40).build()));
    }

    @AfterAll
    static void stop() {
        served.close();
        resourceServer.close();
        authorizationServer.shutdown();
    }

    private static String token(String subject) {
        return authorizationServer.issueToken("default", subject, resource,
                Map.of("scope", "users:read", "client_id", "test-client"), 3600).serialize();
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpRequest.Builder get(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + served.port() + path)).GET();
    }

    private static HttpRequest.Builder post(String path, String body, Map<String, String> headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + served.port() + path))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json").header("Accept", Mcp.ACCEPT);
        headers.forEach(b::header);
        return b;
    }

    private static HttpRequest.Builder getUser(String authorization) {
        Map<String, String> headers = new LinkedHashMap<>(Mcp.modernHeaders("tools/call", "get_user"));
        if (authorization != null) {
            headers.put("Authorization", authorization);
        }
        return post("/mcp", Mcp.request(1, "tools/call", Mcp.meta(Mcp.toolCall("get_user", Mcp.args("id", "42")))),
                headers);
    }

    @Test
    void theMetadataIsServedWithoutATokenAtBothWellKnownPaths() throws Exception {
        for (String path : new String[] {METADATA_PATH, "/.well-known/oauth-protected-resource"}) {
            HttpResponse<String> response = send(get(path));
            assertThat(response.statusCode()).as(path).isEqualTo(200);
            var document = Json.mapper().readTree(response.body());
            assertThat(document.path("resource").asString()).isEqualTo(resource);
            assertThat(document.path("authorization_servers").path(0).asString())
                    .isEqualTo(authorizationServer.issuerUrl("default").toString());
            assertThat(document.path("scopes_supported").toString()).isEqualTo("[\"users:read\",\"users:write\"]");
            assertThat(document.path("bearer_methods_supported").toString()).isEqualTo("[\"header\"]");
        }
    }

    @Test
    void theHealthChecksNeedNoToken() throws Exception {
        assertThat(send(get("/health")).statusCode()).isEqualTo(200);
        assertThat(send(get("/health/ready")).statusCode()).isEqualTo(200);
    }

    @Test
    void everyProtectedPathAnswersARequestWithoutATokenWith401AndWhereTheMetadataIs() throws Exception {
        String challenge = "Bearer scope=\"users:read users:write\", resource_metadata=\"http://127.0.0.1:"
                + served.port() + METADATA_PATH + "\"";
        Map<String, HttpRequest.Builder> requests = new LinkedHashMap<>();
        requests.put("MCP POST", getUser(null));
        requests.put("MCP GET", get("/mcp").header("Accept", "text/event-stream").header("Mcp-Session-Id", "abc"));
        requests.put("MCP DELETE", HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + served.port() + "/mcp"))
                .DELETE().header("Mcp-Session-Id", "abc"));
        requests.put("legacy SSE", get("/sse").header("Accept", "text/event-stream"));
        requests.put("legacy messages", post("/messages?sessionId=abc", "{}", Map.of()));
        requests.put("REST tool", post("/rest/tools/get_user", "{\"id\":\"42\"}", Map.of()));
        requests.put("REST resource", get("/rest/resources?uri=users://42"));
        requests.put("OpenAPI", get("/openapi.json"));
        for (var entry : requests.entrySet()) {
            HttpResponse<String> response = send(entry.getValue());
            assertThat(response.statusCode()).as(entry.getKey()).isEqualTo(401);
            assertThat(response.headers().firstValue("www-authenticate")).as(entry.getKey()).contains(challenge);
        }
    }

    @Test
    void aValidTokenServesTheMcpEndpointAndTheRestFacade() throws Exception {
        HttpResponse<String> call = send(getUser("Bearer " + token("alice")));
        assertThat(call.statusCode()).as(call.body()).isEqualTo(200);
        assertThat(call.body()).contains("user42");

        HttpResponse<String> rest = send(post("/rest/tools/get_user", "{\"id\":\"7\"}",
                Map.of("Authorization", "Bearer " + token("alice"))));
        assertThat(rest.statusCode()).as(rest.body()).isEqualTo(200);
        assertThat(rest.body()).contains("user7");
        assertThat(send(get("/openapi.json").header("Authorization", "Bearer " + token("alice"))).statusCode())
                .isEqualTo(200);
    }

    @Test
    void aWebSocketUpgradeNeedsAValidTokenToo() throws Exception {
        URI ws = URI.create("ws://127.0.0.1:" + served.port() + "/mcp/ws");
        java.net.http.WebSocket.Listener listener = new java.net.http.WebSocket.Listener() {};

        var refused = http.newWebSocketBuilder().subprotocols("mcp").buildAsync(ws, listener);
        assertThat(refused).failsWithin(Duration.ofSeconds(30)).withThrowableThat()
                .havingCause().isInstanceOf(java.net.http.WebSocketHandshakeException.class)
                .satisfies(e -> assertThat(((java.net.http.WebSocketHandshakeException) e).getResponse().statusCode())
                        .isEqualTo(401));

        java.net.http.WebSocket accepted = http.newWebSocketBuilder().subprotocols("mcp")
                .header("Authorization", "Bearer " + token("alice")).buildAsync(ws, listener)
                .get(30, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(accepted.getSubprotocol()).isEqualTo("mcp");
        accepted.abort();
    }

    @Test
    void anExtendedConnectOverHttp2NeedsAValidTokenToo() throws Exception {
        try (RawH2 h2 = RawH2.connect(served.port())) {
            int refused = h2.nextStreamId();
            h2.frame(RawH2.HEADERS, RawH2.END_HEADERS, refused,
                    RawH2.hpack(WebSocketOverHttp2Test.connect(served.port(), "/mcp/ws")));
            RawH2.Response unauthorized = h2.response(refused);
            assertThat(unauthorized.status()).isEqualTo(401);
            assertThat(unauthorized.headers().get("www-authenticate").toString()).startsWith("Bearer");

            // A token not seen before is verified off the event loop; the stream waits for the verdict.
            Map<String, String> withToken = WebSocketOverHttp2Test.connect(served.port(), "/mcp/ws");
            withToken.put("authorization", "Bearer " + token("carol"));
            int accepted = h2.nextStreamId();
            h2.frame(RawH2.HEADERS, RawH2.END_HEADERS, accepted, RawH2.hpack(withToken));
            io.netty.handler.codec.http2.Http2Headers answer = h2.awaitHeaders(accepted);
            assertThat(answer.status()).hasToString("200");
            assertThat(answer.get("sec-websocket-protocol")).hasToString("mcp");
        }
    }

    @Test
    void aForgedOrForeignTokenIsAnInvalidToken() throws Exception {
        String good = token("alice");
        String forged = good.substring(0, good.lastIndexOf('.') + 1) + "AAAA" + good.substring(good.lastIndexOf('.') + 5);
        String foreign = authorizationServer.issueToken("default", "alice", "http://127.0.0.1:1/other",
                Map.of("scope", "users:read"), 3600).serialize();
        for (String bad : new String[] {forged, foreign, "not-a-jwt"}) {
            HttpResponse<String> response = send(getUser("Bearer " + bad));
            assertThat(response.statusCode()).isEqualTo(401);
            assertThat(response.headers().firstValue("www-authenticate").orElseThrow())
                    .startsWith("Bearer error=\"invalid_token\"");
        }
    }

    @Test
    void aTokenInTheQueryStringIsRefusedWith400() throws Exception {
        HttpResponse<String> response = send(get("/openapi.json?access_token=" + token("alice")));
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.headers().firstValue("www-authenticate").orElseThrow())
                .startsWith("Bearer error=\"invalid_request\"");
    }

    @Test
    void aSessionIsBoundToThePrincipalOfItsToken() throws Exception {
        String alice = "Bearer " + token("alice");
        String init = Mcp.request(1, "initialize", Json.mapper().readValue("{\"protocolVersion\":\"" + Mcp.LEGACY
                + "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}",
                tools.jackson.databind.node.ObjectNode.class));
        HttpResponse<String> opened = send(post("/mcp", init, Map.of("Authorization", alice)));
        assertThat(opened.statusCode()).as(opened.body()).isEqualTo(200);
        String session = opened.headers().firstValue("mcp-session-id").orElseThrow();
        String ping = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}";
        Map<String, String> asBob = Map.of("Authorization", "Bearer " + token("bob"), "Mcp-Session-Id", session,
                "MCP-Protocol-Version", Mcp.LEGACY);
        assertThat(send(post("/mcp", ping, asBob)).statusCode()).isEqualTo(404);
        Map<String, String> asAlice = Map.of("Authorization", "Bearer " + token("alice"), "Mcp-Session-Id", session,
                "MCP-Protocol-Version", Mcp.LEGACY);
        assertThat(send(post("/mcp", ping, asAlice)).statusCode()).as("another token of the same principal")
                .isEqualTo(200);
    }

    @Test
    void aPrincipalBeyondItsRateLimitGets429WithRetryAfter() throws Exception {
        String carol = "Bearer " + token("carol");
        int status = 0;
        for (int i = 0; i < 41 && status != 429; i++) {
            HttpResponse<String> response = send(getUser(carol));
            status = response.statusCode();
            if (status == 429) {
                assertThat(Long.parseLong(response.headers().firstValue("retry-after").orElseThrow())).isPositive();
            }
        }
        assertThat(status).isEqualTo(429);
        assertThat(send(getUser("Bearer " + token("dave"))).statusCode()).as("another principal").isEqualTo(200);
    }

    @Test
    void aRevokedOpaqueTokenIsRefusedOnTheNextRequest() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean active = new java.util.concurrent.atomic.AtomicBoolean(true);
        String issuer = authorizationServer.issuerUrl("default").toString();
        // The authorization server's RFC 7662 endpoint, answering as the server would until the token is revoked.
        com.sun.net.httpserver.HttpServer introspection = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        introspection.createContext("/introspect", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            String answer = active.get() && body.contains("token=opaque-alice")
                    ? "{\"active\":true,\"sub\":\"alice\",\"iss\":\"" + issuer + "\",\"aud\":\"" + resource
                            + "\",\"scope\":\"users:read\",\"exp\":" + (System.currentTimeMillis() / 1000 + 3600) + "}"
                    : "{\"active\":false}";
            byte[] bytes = answer.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        introspection.start();
        try (ResourceServer introspecting = ResourceServer.builder(resource).authorizationServer(issuer)
                .introspection("http://127.0.0.1:" + introspection.getAddress().getPort() + "/introspect", "tern",
                        "secret")
                .introspectionCacheTtl(Duration.ZERO).httpTimeout(Duration.ofSeconds(30)).build();
                Served other = new Served(b -> b.auth(introspecting))) {
            HttpRequest.Builder call = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + other.port() + "/mcp"))
                    .POST(HttpRequest.BodyPublishers.ofString(Mcp.request(1, "tools/call",
                            Mcp.meta(Mcp.toolCall("get_user", Mcp.args("id", "42"))))))
                    .header("Content-Type", "application/json").header("Accept", Mcp.ACCEPT)
                    .header("Authorization", "Bearer opaque-alice");
            Mcp.modernHeaders("tools/call", "get_user").forEach(call::header);
            HttpResponse<String> before = send(call);
            assertThat(before.statusCode()).as(before.body()).isEqualTo(200);

            active.set(false);
            HttpResponse<String> after = send(call);
            assertThat(after.statusCode()).isEqualTo(401);
            assertThat(after.headers().firstValue("www-authenticate").orElseThrow())
                    .startsWith("Bearer error=\"invalid_token\"");
        } finally {
            introspection.stop(0);
        }
    }

    @Test
    void anUnreachableAuthorizationServerIs503WithRetryAfterNot401() throws Exception {
        int closed;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = free.getLocalPort();
        }
        String issuer = "http://127.0.0.1:" + closed + "/default";
        try (ResourceServer unreachable = ResourceServer.builder("http://127.0.0.1/mcp").authorizationServer(issuer)
                .httpTimeout(Duration.ofSeconds(2)).build();
                Served other = new Served(b -> b.auth(unreachable))) {
            var key = new com.nimbusds.jose.jwk.gen.RSAKeyGenerator(2048).keyID("k1").generate();
            var jwt = new com.nimbusds.jwt.SignedJWT(new com.nimbusds.jose.JWSHeader.Builder(
                    com.nimbusds.jose.JWSAlgorithm.RS256).keyID("k1").build(),
                    new com.nimbusds.jwt.JWTClaimsSet.Builder().issuer(issuer).subject("alice")
                            .audience("http://127.0.0.1/mcp")
                            .expirationTime(new java.util.Date(System.currentTimeMillis() + 3_600_000)).build());
            jwt.sign(new com.nimbusds.jose.crypto.RSASSASigner(key));
            String token = jwt.serialize();
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + other.port()
                    + "/mcp")).POST(HttpRequest.BodyPublishers.ofString("{}")).header("Content-Type", "application/json")
                    .header("Accept", Mcp.ACCEPT).header("Authorization", "Bearer " + token);
            HttpResponse<String> response = send(request);
            assertThat(response.statusCode()).as(response.body()).isEqualTo(503);
            assertThat(response.headers().firstValue("retry-after")).isPresent();
        }
    }
}
