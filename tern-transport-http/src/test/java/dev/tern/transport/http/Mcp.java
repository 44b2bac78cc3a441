package dev.tern.transport.http;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.tern.protocol.Json;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import static org.assertj.core.api.Assertions.assertThat;

/** A well-behaved MCP client over the JDK HttpClient (HTTP/1.1 or h2c), for both eras. */
final class Mcp implements AutoCloseable {
    static final String MODERN = "2026-07-28";
    static final String LEGACY = "2025-11-25";
    static final String ACCEPT = "application/json, text/event-stream";

    final HttpClient client;
    final URI uri;
    final HttpClient.Version version;
    private int nextId = 1000;

    Mcp(HttpServerTransport transport, HttpClient.Version version) {
        this(transport, version, null);
    }

    Mcp(HttpServerTransport transport, HttpClient.Version version, javax.net.ssl.SSLContext ssl) {
        this.version = version;
        HttpClient.Builder b = HttpClient.newBuilder().version(version).connectTimeout(Duration.ofSeconds(10));
        if (ssl != null) {
            b.sslContext(ssl);
        }
        this.client = b.build();
        this.uri = URI.create(transport.url());
        if (version == HttpClient.Version.HTTP_2) {
            // The first, body-less request upgrades the connection (h2c) or negotiates h2 (ALPN); later ones reuse it.
            Reply health = get(uri.resolve("/health"), Map.of());
            assertThat(health.status()).isEqualTo(200);
            assertThat(health.version()).isEqualTo(HttpClient.Version.HTTP_2);
        }
    }

    /** One HTTP answer: status, headers, body, and the JSON-RPC messages in it (a JSON body or SSE events). */
    record Reply(int status, HttpHeaders headers, String body, HttpClient.Version version) {
        boolean isSse() {
            return headers.firstValue("content-type").orElse("").startsWith("text/event-stream");
        }

        List<JsonNode> messages() {
            List<JsonNode> out = new ArrayList<>();
            if (body.isEmpty()) {
                return out;
            }
            if (!isSse()) {
                out.add(Json.mapper().readTree(body));
                return out;
            }
            for (String event : body.split("\n\n")) {
                StringBuilder data = new StringBuilder();
                for (String line : event.split("\n")) {
                    if (line.startsWith("data:")) {
                        data.append(line.substring(5).strip());
                    }
                }
                if (!data.isEmpty()) {
                    out.add(Json.mapper().readTree(data.toString()));
                }
            }
            return out;
        }

        /** The last message: the JSON body, or the final event of a stream. */
        JsonNode json() {
            List<JsonNode> all = messages();
            assertThat(all).as("JSON-RPC messages in: %s", body).isNotEmpty();
            return all.get(all.size() - 1);
        }

        int code() {
            return json().path("error").path("code").asInt(0);
        }

        String header(String name) {
            return headers.firstValue(name).orElse(null);
        }

        @Override
        public String toString() {
            return status + " " + headers.map() + " " + body;
        }
    }

    Reply get(URI target, Map<String, String> headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(target).timeout(Duration.ofSeconds(20)).GET();
        headers.forEach(b::header);
        return send(b.build());
    }

    Reply send(HttpRequest request) {
        try {
            HttpResponse<String> r = client.send(request, HttpResponse.BodyHandlers.ofString());
            return new Reply(r.statusCode(), r.headers(), r.body(), r.version());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    HttpRequest.Builder postBuilder(String body, Map<String, String> headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        Map<String, String> all = new LinkedHashMap<>();
        all.put("Content-Type", "application/json");
        all.put("Accept", ACCEPT);
        all.putAll(headers);
        all.forEach((k, v) -> {
            if (v != null) {
                b.header(k, v);
            }
        });
        return b;
    }

    Reply post(String body, Map<String, String> headers) {
        return send(postBuilder(body, headers).build());
    }

    // ------------------------------------------------------------------ 2026-07-28

    static ObjectNode meta(ObjectNode params) {
        ObjectNode p = params == null ? Json.object() : params.deepCopy();
        ObjectNode meta = p.has("_meta") ? (ObjectNode) p.get("_meta") : p.putObject("_meta");
        meta.put("io.modelcontextprotocol/protocolVersion", MODERN);
        meta.putObject("io.modelcontextprotocol/clientCapabilities");
        meta.putObject("io.modelcontextprotocol/clientInfo").put("name", "test-client").put("version", "1.0");
        return p;
    }

    static String request(Object id, String method, ObjectNode params) {
        ObjectNode r = Json.object();
        r.put("jsonrpc", "2.0");
        if (id instanceof Number n) {
            r.put("id", n.longValue());
        } else if (id != null) {
            r.put("id", id.toString());
        }
        r.put("method", method);
        if (params != null) {
            r.set("params", params);
        }
        return Json.mapper().writeValueAsString(r);
    }

    /** The headers a 2026-07-28 client sends with a request. */
    static Map<String, String> modernHeaders(String method, String name) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("MCP-Protocol-Version", MODERN);
        h.put("Mcp-Method", method);
        if (name != null) {
            h.put("Mcp-Name", name);
        }
        return h;
    }

    Reply modern(String method, ObjectNode params) {
        return modern(nextId++, method, params);
    }

    Reply modern(Object id, String method, ObjectNode params) {
        ObjectNode p = meta(params);
        String name = switch (method) {
            case "tools/call", "prompts/get" -> p.path("name").asString();
            case "resources/read" -> p.path("uri").asString();
            default -> null;
        };
        return post(request(id, method, p), modernHeaders(method, name));
    }

    static ObjectNode toolCall(String tool, ObjectNode arguments) {
        ObjectNode p = Json.object();
        p.put("name", tool);
        p.set("arguments", arguments == null ? Json.object() : arguments);
        return p;
    }

    static ObjectNode args(String... keyValues) {
        ObjectNode a = Json.object();
        for (int i = 0; i < keyValues.length; i += 2) {
            a.put(keyValues[i], keyValues[i + 1]);
        }
        return a;
    }

    // ------------------------------------------------------------------ legacy sessions

    /** Opens a legacy session: initialize, then notifications/initialized; returns the session id. */
    String initialize(String protocolVersion) {
        ObjectNode params = Json.object();
        params.put("protocolVersion", protocolVersion);
        params.putObject("capabilities");
        params.putObject("clientInfo").put("name", "test-client").put("version", "1.0");
        Reply init = post(request(1, "initialize", params), Map.of());
        assertThat(init.status()).as("initialize: %s", init).isEqualTo(200);
        assertThat(init.json().path("result").path("protocolVersion").asString()).isEqualTo(protocolVersion);
        String session = init.header("mcp-session-id");
        assertThat(session).isNotNull();
        Reply initialized = post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                legacyHeaders(session, protocolVersion));
        assertThat(initialized.status()).isEqualTo(202);
        return session;
    }

    static Map<String, String> legacyHeaders(String session, String protocolVersion) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("Mcp-Session-Id", session);
        h.put("MCP-Protocol-Version", protocolVersion);
        return h;
    }

    Reply legacy(String session, Object id, String method, ObjectNode params) {
        return post(request(id, method, params), legacyHeaders(session, LEGACY));
    }

    // ------------------------------------------------------------------ the well-behaved client

    /** Asserts the server still serves a well-behaved client in both eras over this client's HTTP version. */
    void assertServes() {
        Reply modern = modern("tools/call", toolCall("get_user", args("id", "42")));
        assertThat(modern.status()).as("modern get_user: %s", modern).isEqualTo(200);
        assertThat(modern.json().path("result").path("content").path(0).path("text").asString()).contains("user42");
        String session = initialize(LEGACY);
        Reply legacy = legacy(session, 2, "tools/call", toolCall("get_user", args("id", "7")));
        assertThat(legacy.status()).as("legacy get_user: %s", legacy).isEqualTo(200);
        assertThat(legacy.json().path("result").path("content").path(0).path("text").asString()).contains("user7");
    }

    @Override
    public void close() {
        client.close();
    }
}
