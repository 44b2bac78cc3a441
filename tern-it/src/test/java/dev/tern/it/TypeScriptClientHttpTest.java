package dev.tern.it;

import static dev.tern.it.TypeScriptClients.assertEra;
import static dev.tern.it.TypeScriptClients.assertInteractions;
import static dev.tern.it.TypeScriptClients.assertServing;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.tern.protocol.Json;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The official MCP TypeScript SDK clients use Tern over Streamable HTTP ({@code StreamableHTTPClientTransport}):
 * {@code src/test/js/http-client.mjs} runs the checks on Node 22 and prints what it saw, asserted on here.
 *
 * <p>{@code @modelcontextprotocol/sdk} 1.x speaks the legacy era: an {@code initialize} that opens an
 * {@code Mcp-Session-Id} session, a standalone GET stream, server-to-client requests (elicitation) on the POST's SSE
 * stream, {@code notifications/cancelled}, and DELETE to end the session. The 2.x client package,
 * {@code @modelcontextprotocol/client}, also speaks 2026-07-28: stateless POSTs that each carry
 * {@code MCP-Protocol-Version}, elicitation through {@code input_required} results, and cancellation by closing the
 * request's response stream. Tools that report progress, log, elicit or wait to be cancelled come from
 * {@link InteropServer}, served by {@link InteropHttpMain}; the user directory also comes from {@code tern serve}.
 */
class TypeScriptClientHttpTest {
    private static final List<String> SERVING_CHECKS =
            List.of("tools", "get_user", "resource", "prompt", "completion", "session");
    private static final int ALL_CHECKS = 10;

    private static InteropHttpMain.Running interop;

    @TempDir
    Path temp;

    @BeforeAll
    static void start() throws Exception {
        NodeTools.node();
        NodeTools.npmDir();
        interop = InteropHttpMain.start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (interop != null) {
            String stderr = interop.stderr();
            interop.close();
            JavaSdkClientHttpTest.assertNoServerErrors(stderr);
        }
    }

    @Test
    void legacySessionWithTheV1Sdk() throws Exception {
        JsonNode summary = runClient(interop.url(), "v1", "legacy", null);

        assertEra(summary, "@modelcontextprotocol/sdk", "legacy", "2025-11-25");
        assertServing(summary);
        assertInteractions(summary, false, false);
        assertLegacySession(summary);
        JsonNode wire = summary.path("wire");
        assertThat(wire.path("sent").path("initialize").asInt()).isEqualTo(1);
        assertThat(wire.path("sent").path("notifications/initialized").asInt()).isEqualTo(1);
        assertThat(wire.path("sent").path("logging/setLevel").asInt()).isEqualTo(2);
        assertThat(wire.path("received").path("elicitation/create").asInt()).isEqualTo(1);
    }

    @Test
    void legacySessionWithTheV2Client() throws Exception {
        JsonNode summary = runClient(interop.url(), "v2", "legacy", null);

        assertEra(summary, "@modelcontextprotocol/client", "legacy", "2025-11-25");
        assertServing(summary);
        assertInteractions(summary, false, false);
        assertLegacySession(summary);
    }

    @Test
    void statelessWithTheV2ClientNegotiatingByDiscover() throws Exception {
        JsonNode summary = runClient(interop.url(), "v2", "auto", null);

        assertEra(summary, "@modelcontextprotocol/client", "modern", "2026-07-28");
        assertServing(summary);
        assertInteractions(summary, true, true);
        assertStateless(summary);
        JsonNode wire = summary.path("wire");
        assertThat(wire.path("sent").path("server/discover").asInt()).isEqualTo(1);
        assertThat(wire.path("sent").has("initialize")).as("no initialize in the 2026-07-28 era").isFalse();
        assertThat(wire.path("sent").has("logging/setLevel")).isFalse();
        assertThat(wire.path("received").has("elicitation/create"))
                .as("no server-to-client requests in the 2026-07-28 era").isFalse();
        assertThat(wire.path("inputRequired").asInt()).isEqualTo(1);
        assertThat(wire.path("resultsWithoutResultType").asInt()).as("results without resultType").isZero();
        assertThat(wire.path("completeResultsWithoutServerInfo").asInt()).as("results without _meta serverInfo").isZero();
        assertThat(wire.path("inputRequiredWithoutServerInfo").asInt()).as("input_required results without _meta serverInfo").isZero();
    }

    @Test
    void deprecatedHttpPlusSseTransportWithTheV1Sdk() throws Exception {
        List<String> checks = List.of("tools", "get_user", "resource", "prompt", "completion", "progress", "logging",
                "elicitation", "cancel");
        JsonNode summary = runClient(interop.url().replace("/mcp", "/sse"), "v1", "legacy", checks, "sse");

        assertEra(summary, "@modelcontextprotocol/sdk", "legacy", "2025-11-25");
        assertServing(summary);
        assertInteractions(summary, false, false);
        JsonNode http = summary.path("http");
        assertThat(http.path("sessionIdsReturned").size()).as("no Mcp-Session-Id on the old transport").isZero();
        assertThat(http.path("statuses").path("202").asInt()).as("every POST is answered 202").isPositive();
        assertThat(statuses(http)).as("HTTP statuses").containsOnlyKeys("200", "202");
    }

    @Test
    void ternServeWithTheV1Sdk() throws Exception {
        try (TernProcess tern = TernProcess.http("user-directory")) {
            JsonNode summary = runClient(tern.url(), "v1", "legacy", SERVING_CHECKS);

            assertEra(summary, "@modelcontextprotocol/sdk", "legacy", "2025-11-25");
            assertThat(summary.path("server").path("name").asString()).isEqualTo("tern-user-directory");
            assertServing(summary);
            assertLegacySession(summary);
            JavaSdkClientHttpTest.assertNoServerErrors(tern.stderr());
        }
    }

    @Test
    void ternServeWithTheV2ClientPinnedTo20260728() throws Exception {
        try (TernProcess tern = TernProcess.http("user-directory")) {
            JsonNode summary = runClient(tern.url(), "v2", "2026-07-28", SERVING_CHECKS);

            assertEra(summary, "@modelcontextprotocol/client", "modern", "2026-07-28");
            assertThat(summary.path("server").path("name").asString()).isEqualTo("tern-user-directory");
            assertServing(summary);
            assertStateless(summary);
            assertThat(summary.path("wire").path("resultsWithoutResultType").asInt()).isZero();
            JavaSdkClientHttpTest.assertNoServerErrors(tern.stderr());
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    private JsonNode runClient(String url, String sdk, String era, List<String> checks)
            throws IOException, InterruptedException {
        return runClient(url, sdk, era, checks, "streamable");
    }

    private JsonNode runClient(String url, String sdk, String era, List<String> checks, String transport)
            throws IOException, InterruptedException {
        ObjectNode config = Json.object();
        config.put("transport", transport);
        config.put("url", url);
        JsonNode summary = TypeScriptClients.run("http-client.mjs", config, sdk, era, checks, ALL_CHECKS, temp);
        assertThat(summary.path("http").path("failedFetches").asInt())
                .as("failed fetches; the last exchanges: %s", summary.path("recentHttp")).isZero();
        return summary;
    }

    /** One Mcp-Session-Id from initialize to DELETE, a GET stream, and 404 for the id once deleted. */
    private static void assertLegacySession(JsonNode summary) {
        JsonNode session = summary.path("checks").path("session");
        assertThat(session.path("getStream").path("status").asInt()).isEqualTo(200);
        assertThat(session.path("getStream").path("contentType").asString()).startsWith("text/event-stream");
        assertThat(session.path("deleteStatus").asInt()).isEqualTo(200);
        assertThat(session.path("afterDelete").path("post").asInt()).isEqualTo(404);
        assertThat(session.path("afterDelete").path("get").asInt()).isEqualTo(404);
        assertThat(session.path("afterDelete").path("delete").asInt()).isEqualTo(404);

        JsonNode http = summary.path("http");
        assertThat(http.path("sessionIdsReturned").size()).as("session ids the server gave").isEqualTo(1);
        assertThat(http.path("sessionIdsSent")).as("session ids the client sent").isEqualTo(http.path("sessionIdsReturned"));
        assertThat(http.path("byMethod").path("GET").asInt()).isEqualTo(1);
        assertThat(http.path("byMethod").path("DELETE").asInt()).isEqualTo(1);
        // only initialize goes without MCP-Protocol-Version
        assertThat(http.path("protocolVersionHeaders").path("none").asInt()).isEqualTo(1);
        assertThat(statuses(http)).as("HTTP statuses").containsOnlyKeys("200", "202");
    }

    /** No session, POST only, each with MCP-Protocol-Version; GET on the endpoint is 405. */
    private static void assertStateless(JsonNode summary) {
        JsonNode http = summary.path("http");
        assertThat(http.path("sessionIdsReturned").size()).isZero();
        assertThat(http.path("sessionIdsSent").size()).isZero();
        assertThat(http.path("byMethod").properties()).extracting(Map.Entry::getKey).containsExactly("POST");
        assertThat(http.path("protocolVersionHeaders").properties()).extracting(Map.Entry::getKey)
                .containsExactly("2026-07-28");
        assertThat(statuses(http)).as("HTTP statuses").containsOnlyKeys("200");
        assertThat(summary.path("checks").path("session").path("getStatus").asInt()).isEqualTo(405);
    }

    private static Map<String, Integer> statuses(JsonNode http) {
        Map<String, Integer> statuses = new java.util.TreeMap<>();
        http.path("statuses").properties().forEach(e -> statuses.put(e.getKey(), e.getValue().asInt()));
        return statuses;
    }
}
