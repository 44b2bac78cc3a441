package dev.tern.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.tern.examples.UserDirectory;
import dev.tern.protocol.Json;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The official MCP TypeScript SDK clients spawn Tern over stdio ({@code StdioClientTransport}) and use it:
 * {@code src/test/js/stdio-client.mjs} runs the checks on Node 22 and prints what it saw, asserted on here.
 *
 * <p>Eras: {@code @modelcontextprotocol/sdk} (1.x, newest 1.32.2) speaks the legacy era only (up to 2025-11-25,
 * {@code initialize}). The 2026-07-28 era is driven with the SDK's 2.x client package,
 * {@code @modelcontextprotocol/client}, which negotiates it with {@code server/discover} and per-request
 * {@code _meta}, and fulfils elicitation through {@code input_required} results.
 */
class TypeScriptClientStdioTest {
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(2);
    private static final List<String> SERVING_CHECKS = List.of("tools", "get_user", "resource", "prompt", "completion");
    private static final String CANCEL_REASON = "interop test: cancelled by the client";

    private static Path node;
    private static Path npmDir;

    @TempDir
    Path temp;

    @BeforeAll
    static void installNode() throws Exception {
        node = NodeTools.node();
        npmDir = NodeTools.npmDir();
    }

    @Test
    void legacyEraWithTheV1Sdk() throws Exception {
        JsonNode summary = runClient(InteropMain.command(), "v1", "legacy", null);

        assertEra(summary, "@modelcontextprotocol/sdk", "legacy", "2025-11-25");
        assertServing(summary);
        assertInteractions(summary, false);
        JsonNode wire = summary.path("wire");
        assertThat(wire.path("sent").path("initialize").asInt()).isEqualTo(1);
        assertThat(wire.path("sent").path("notifications/initialized").asInt()).isEqualTo(1);
        assertThat(wire.path("sent").path("logging/setLevel").asInt()).isEqualTo(2);
    }

    @Test
    void modernEraWithTheV2ClientNegotiatingByDiscover() throws Exception {
        JsonNode summary = runClient(InteropMain.command(), "v2", "auto", null);

        assertEra(summary, "@modelcontextprotocol/client", "modern", "2026-07-28");
        assertServing(summary);
        assertInteractions(summary, true);
        JsonNode wire = summary.path("wire");
        assertThat(wire.path("sent").has("initialize")).as("no initialize in the 2026-07-28 era").isFalse();
        assertThat(wire.path("sent").has("logging/setLevel")).isFalse();
        assertThat(wire.path("received").has("elicitation/create"))
                .as("no server-to-client requests in the 2026-07-28 era").isFalse();
        assertThat(wire.path("resultsWithoutResultType").asInt()).as("results without resultType").isZero();
        assertThat(wire.path("completeResultsWithoutServerInfo").asInt()).as("results without _meta serverInfo").isZero();
        assertThat(wire.path("inputRequiredWithoutServerInfo").asInt()).as("input_required results without _meta serverInfo").isZero();
    }

    @Test
    void realTernCommandWithTheV1Sdk() throws Exception {
        JsonNode summary = runClient(TernProcess.command("user-directory"), "v1", "legacy", SERVING_CHECKS);

        assertEra(summary, "@modelcontextprotocol/sdk", "legacy", "2025-11-25");
        assertThat(summary.path("server").path("name").asString()).isEqualTo("tern-user-directory");
        assertServing(summary);
    }

    @Test
    void realTernCommandWithTheV2ClientInTheModernEra() throws Exception {
        JsonNode summary = runClient(TernProcess.command("user-directory"), "v2", "2026-07-28", SERVING_CHECKS);

        assertEra(summary, "@modelcontextprotocol/client", "modern", "2026-07-28");
        assertThat(summary.path("server").path("name").asString()).isEqualTo("tern-user-directory");
        assertServing(summary);
        assertThat(summary.path("wire").path("resultsWithoutResultType").asInt()).isZero();
    }

    // ---------------------------------------------------------------------------------------------------------

    private JsonNode runClient(List<String> serverCommand, String sdk, String era, List<String> checks)
            throws IOException, InterruptedException {
        ObjectNode config = Json.object();
        config.put("command", serverCommand.getFirst());
        ArrayNode args = config.putArray("args");
        serverCommand.subList(1, serverCommand.size()).forEach(args::add);
        config.put("npmDir", npmDir.toString());
        config.put("sdk", sdk);
        config.put("era", era);
        config.put("timeoutMs", RUN_TIMEOUT.toMillis() - 10_000);
        if (checks != null) {
            ArrayNode list = config.putArray("checks");
            checks.forEach(list::add);
        }
        Path configFile = temp.resolve("config-" + sdk + "-" + era + ".json");
        Files.writeString(configFile, Json.mapper().writeValueAsString(config));

        Path script = NodeTools.root().resolve("tern-it/src/test/js/stdio-client.mjs");
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
        assertThat(summary.path("checks").size()).as(report).isEqualTo(checks == null ? 9 : checks.size());
        assertThat(summary.path("ok").asBoolean()).as(report).isTrue();
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

        JsonNode logging = checks.path("logging");
        assertThat(levels(logging.path("atDebug"))).containsExactly("debug", "info", "warning");
        assertThat(levels(logging.path("atWarning"))).containsExactly("warning");
        assertThat(logging.path("levelVia").asString()).isEqualTo(modern ? "_meta" : "logging/setLevel");

        JsonNode elicitation = checks.path("elicitation");
        assertThat(elicitation.path("result").path("action").asString()).isEqualTo("accept");
        assertThat(elicitation.path("result").path("name").asString()).isEqualTo("Ada Lovelace");
        assertThat(elicitation.path("via").asString()).isEqualTo(modern ? "input_required" : "elicitation/create");

        JsonNode cancel = checks.path("cancel");
        assertThat(cancel.path("cancelledNotificationsSent").asInt()).isEqualTo(1);
        assertThat(cancel.path("serverSaw").path("count").asInt()).isEqualTo(1);
        assertThat(cancel.path("serverSaw").path("lastReason").asString()).isEqualTo(CANCEL_REASON);
        assertThat(cancel.path("clientError").asString()).isNotEmpty();
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
