package dev.tern.it;

import static dev.tern.it.TypeScriptClients.assertEra;
import static dev.tern.it.TypeScriptClients.assertInteractions;
import static dev.tern.it.TypeScriptClients.assertServing;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
    private static final List<String> SERVING_CHECKS = List.of("tools", "get_user", "resource", "prompt", "completion");


    @TempDir
    Path temp;

    @BeforeAll
    static void installNode() throws Exception {
        NodeTools.node();
        NodeTools.npmDir();
    }

    @Test
    void legacyEraWithTheV1Sdk() throws Exception {
        JsonNode summary = runClient(InteropMain.command(), "v1", "legacy", null);

        assertEra(summary, "@modelcontextprotocol/sdk", "legacy", "2025-11-25");
        assertServing(summary);
        assertInteractions(summary, false, false);
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
        assertInteractions(summary, true, false);
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
        return TypeScriptClients.run("stdio-client.mjs", config, sdk, era, checks, 9, temp);
    }
}
