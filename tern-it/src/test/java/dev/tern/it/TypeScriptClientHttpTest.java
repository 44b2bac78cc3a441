package dev.tern.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.tern.examples.UserDirectory;
import dev.tern.protocol.Json;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
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
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(2);
    private static final List<String> SERVING_CHECKS =
            List.of("tools", "get_user", "resource", "prompt", "completion", "session");
    private static final String CANCEL_REASON = "interop test: cancelled by the client";
    private static final int ALL_CHECKS = 10;

    private static Path node;
    private static Path npmDir;
    private static InteropHttpMain.Running interop;

    @TempDir
    Path temp;

    @BeforeAll
    static void start() throws Exception {
        node = NodeTools.node();
        npmDir = NodeTools.npmDir();
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
        assertInteractions(summary, false);
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
        assertInteractions(summary, false);
        assertLegacySession(summary);
    }

    @Test
    void statelessWithTheV2ClientNegotiatingByDiscover() throws Exception {
        JsonNode summary = runClient(interop.url(), "v2", "auto", null);

        assertEra(summary, "@modelcontextprotocol/client", "modern", "2026-07-28");
        assertServing(summary);
        assertInteractions(summary, true);
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
        assertInteractions(summary, false);
        JsonNode http = summary.path("http");
        assertThat(http.path("sessionIdsReturned").size()).as("no Mcp-Session-Id on the old transport").isZero();
        assertThat(http.path("statuses").path("202").asInt()).as("every POST is answered 202").isPositive();
        assertThat(http.path("statuses").properties().stream().map(e -> e.getKey()))
                .as("statuses seen").containsOnly("200", "202");
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
        config.put("npmDir", npmDir.toString());
        config.put("sdk", sdk);
        config.put("era", era);
        config.put("timeoutMs", RUN_TIMEOUT.toMillis() - 10_000);
        if (checks != null) {
            ArrayNode list = config.putArray("checks");
            checks.forEach(list::add);
        }
        Path configFile = temp.resolve("config-" + sdk + "-" + era + "-" + transport + ".json");
        Files.writeString(configFile, Json.mapper().writeValueAsString(config));

        Path script = NodeTools.root().resolve("tern-it/src/test/js/http-client.mjs");
        List<String> command = new ArrayList<>(List.of(node.toString(), script.toString(), configFile.toString()));
        NodeTools.Result result = NodeTools.run(command, NodeTools.root(), Map.of("TERN_NPM_DIR", npmDir.toString()),
                RUN_TIMEOUT);

        assertThat(result.timedOut()).as("the client ran too long: %s", result.describe()).isFalse();
        JsonNode summary;
        try {
            summary = Json.mapper().readTree(result.stdout());
        } catch (RuntimeException e) {
            throw new AssertionError("the client printed no JSON summary: " + result.describe(), e);
        }
        String report = Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(summary)
                + "\n--- client stderr\n" + result.stderr();
        assertThat(summary.path("failures").size()).as("failures in:\n%s", report).isZero();
        assertThat(summary.path("clientErrors").size()).as("client errors in:\n%s", report).isZero();
        for (var check : summary.path("checks").properties()) {
            assertThat(check.getValue().path("ok").asBoolean()).as("check %s in:\n%s", check.getKey(), report).isTrue();
        }
        assertThat(summary.path("checks").size()).as(report).isEqualTo(checks == null ? ALL_CHECKS : checks.size());
        assertThat(summary.path("ok").asBoolean()).as(report).isTrue();
        assertThat(summary.path("http").path("failedFetches").asInt()).as(report).isZero();
        assertThat(result.exitCode()).as(report).isZero();
        return summary;
    }

    private static void assertEra(JsonNode summary, String sdkPackage, String era, String version) throws IOException {
        assertThat(summary.path("sdk").path("package").asString()).isEqualTo(sdkPackage);
        assertThat(summary.path("sdk").path("version").asString()).isEqualTo(NodeTools.pinnedVersion(sdkPackage));
        assertThat(summary.path("era").asString()).isEqualTo(era);
        assertThat(summary.path("protocolVersion").asString()).isEqualTo(version);
    }

    /** The user directory as served: tools, get_user with structured content, user://7, summarize_user, completion. */
    private static void assertServing(JsonNode summary) {
        JsonNode checks = summary.path("checks");
        assertThat(names(checks.path("tools").path("names"))).contains("get_user", "search_users", "list_users");
        assertThat(checks.path("tools").path("getUserReadOnly").asBoolean()).isTrue();

        UserDirectory.User seven = UserDirectory.generate(1_000).find("7").orElseThrow();
        JsonNode user = checks.path("get_user").path("structuredContent");
        assertThat(user.path("id").asString()).isEqualTo("7");
        assertThat(user.path("username").asString()).isEqualTo(seven.username());
        assertThat(user.path("email").asString()).isEqualTo(seven.email());
        assertThat(user.path("city").asString()).isEqualTo(seven.address().city());
        assertThat(checks.path("get_user").path("unknownIdError").asString()).contains("no-such-user");

        assertThat(checks.path("resource").path("uri").asString()).isEqualTo("user://7");
        assertThat(checks.path("resource").path("mimeType").asString()).isEqualTo("application/json");
        assertThat(names(checks.path("resource").path("templates"))).contains("user://{id}");

        assertThat(names(checks.path("prompt").path("contentTypes"))).containsExactly("text", "resource");
        assertThat(checks.path("prompt").path("embeddedUri").asString()).isEqualTo("user://7");

        assertThat(names(checks.path("completion").path("values"))).contains("99", "990", "999");
    }

    /** Progress, logging, elicitation and cancellation against {@link InteropServer}. */
    private static void assertInteractions(JsonNode summary, boolean modern) {
        JsonNode checks = summary.path("checks");
        assertThat(summary.path("server").path("name").asString()).isEqualTo("tern-interop");

        JsonNode progress = checks.path("progress").path("notifications");
        assertThat(progress.size()).isEqualTo(3);
        for (int i = 0; i < 3; i++) {
            assertThat(progress.get(i).path("progress").asInt()).isEqualTo(i + 1);
            assertThat(progress.get(i).path("total").asInt()).isEqualTo(3);
            assertThat(progress.get(i).path("message").asString()).isEqualTo("step " + (i + 1) + " of 3");
        }
        if (!summary.path("transport").asString().equals("sse")) {
            assertThat(checks.path("progress").path("sseResponses").asInt()).isPositive();
        }

        JsonNode logging = checks.path("logging");
        assertThat(levels(logging.path("atDebug"))).containsExactly("debug", "info", "warning");
        assertThat(levels(logging.path("atWarning"))).containsExactly("warning");
        assertThat(logging.path("levelVia").asString()).isEqualTo(modern ? "_meta" : "logging/setLevel");

        JsonNode elicitation = checks.path("elicitation");
        assertThat(elicitation.path("result").path("action").asString()).isEqualTo("accept");
        assertThat(elicitation.path("result").path("name").asString()).isEqualTo("Ada Lovelace");
        assertThat(elicitation.path("via").asString()).isEqualTo(modern ? "input_required" : "elicitation/create");
        // legacy: the answer to elicitation/create is POSTed back; 2026-07-28: it rides on the retried request
        assertThat(elicitation.path("answersPosted").asInt()).isEqualTo(modern ? 0 : 1);

        JsonNode cancel = checks.path("cancel");
        assertThat(cancel.path("serverSaw").path("count").asInt()).isEqualTo(1);
        assertThat(cancel.path("clientError").asString()).isNotEmpty();
        if (modern) {
            // 2026-07-28 over HTTP: closing the response stream is the cancellation
            assertThat(cancel.path("cancelledNotificationsSent").asInt()).isZero();
            assertThat(cancel.path("serverSaw").path("lastReason").asString()).isNotEmpty();
        } else {
            assertThat(cancel.path("cancelledNotificationsSent").asInt()).isEqualTo(1);
            assertThat(cancel.path("serverSaw").path("lastReason").asString()).isEqualTo(CANCEL_REASON);
        }
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

    private static List<String> names(JsonNode array) {
        List<String> names = new ArrayList<>();
        array.forEach(n -> names.add(n.asString()));
        return names;
    }

    private static List<String> levels(JsonNode messages) {
        List<String> levels = new ArrayList<>();
        messages.forEach(m -> levels.add(m.path("level").asString()));
        return levels;
    }
}
