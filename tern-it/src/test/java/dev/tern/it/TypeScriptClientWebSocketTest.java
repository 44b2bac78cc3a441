package dev.tern.it;

import static dev.tern.it.TypeScriptClients.assertEra;
import static dev.tern.it.TypeScriptClients.assertInteractions;
import static dev.tern.it.TypeScriptClients.assertServing;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.tern.protocol.Json;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The official MCP TypeScript SDK's {@code WebSocketClientTransport} (subprotocol {@code mcp}) uses Tern's WebSocket
 * endpoint: {@code src/test/js/ws-client.mjs} runs the same checks as over stdio and Streamable HTTP and prints what
 * it saw, asserted on here.
 *
 * <p>Only {@code @modelcontextprotocol/sdk} 1.x ships that transport; its client speaks the legacy era, a session
 * bound to the connection, with elicitation as a server-to-client request and cancellation by
 * {@code notifications/cancelled} on the same connection. The 2.x client package ({@code @modelcontextprotocol/client})
 * ships no WebSocket transport, but its client runs over the 1.x transport class, which drives the 2026-07-28 era
 * (discovery, per-request {@code _meta}, {@code input_required}) over WebSocket too.
 */
class TypeScriptClientWebSocketTest {
    private static final List<String> SERVING_CHECKS = List.of("tools", "get_user", "resource", "prompt", "completion");

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

    /** The WebSocket endpoint next to a Streamable HTTP endpoint {@code http://host:port/mcp}. */
    static String webSocketUrl(String httpUrl) {
        assertThat(httpUrl).startsWith("http://").endsWith("/mcp");
        return "ws://" + httpUrl.substring("http://".length()) + "/ws";
    }

    @Test
    void legacySessionOnTheConnectionWithTheV1Sdk() throws Exception {
        JsonNode summary = runClient(webSocketUrl(interop.url()), "v1", "legacy", null);

        assertEra(summary, "@modelcontextprotocol/sdk", "legacy", "2025-11-25");
        assertServing(summary);
        assertInteractions(summary, false, false);
        JsonNode wire = summary.path("wire");
        assertThat(wire.path("sent").path("initialize").asInt()).isEqualTo(1);
        assertThat(wire.path("sent").path("notifications/initialized").asInt()).isEqualTo(1);
        assertThat(wire.path("sent").path("logging/setLevel").asInt()).isEqualTo(2);
        assertThat(wire.path("received").path("elicitation/create").asInt()).isEqualTo(1);
    }

    @Test
    void statelessRequestsWithTheV2ClientNegotiatingByDiscover() throws Exception {
        JsonNode summary = runClient(webSocketUrl(interop.url()), "v2", "auto", null);

        assertEra(summary, "@modelcontextprotocol/client", "modern", "2026-07-28");
        assertServing(summary);
        assertInteractions(summary, true, false);
        JsonNode wire = summary.path("wire");
        assertThat(wire.path("sent").path("server/discover").asInt()).isEqualTo(1);
        assertThat(wire.path("sent").has("initialize")).as("no initialize in the 2026-07-28 era").isFalse();
        assertThat(wire.path("received").has("elicitation/create"))
                .as("no server-to-client requests in the 2026-07-28 era").isFalse();
        assertThat(wire.path("inputRequired").asInt()).isEqualTo(1);
        assertThat(wire.path("resultsWithoutResultType").asInt()).as("results without resultType").isZero();
        assertThat(wire.path("completeResultsWithoutServerInfo").asInt()).as("results without _meta serverInfo").isZero();
    }

    @Test
    void ternServeWithTheV1Sdk() throws Exception {
        try (TernProcess tern = TernProcess.http("user-directory")) {
            JsonNode summary = runClient(webSocketUrl(tern.url()), "v1", "legacy", SERVING_CHECKS);

            assertEra(summary, "@modelcontextprotocol/sdk", "legacy", "2025-11-25");
            assertThat(summary.path("server").path("name").asString()).isEqualTo("tern-user-directory");
            assertServing(summary);
            JavaSdkClientHttpTest.assertNoServerErrors(tern.stderr());
        }
    }

    private JsonNode runClient(String url, String sdk, String era, List<String> checks)
            throws IOException, InterruptedException {
        ObjectNode config = Json.object();
        config.put("url", url);
        return TypeScriptClients.run("ws-client.mjs", config, sdk, era, checks, 9, temp);
    }
}
