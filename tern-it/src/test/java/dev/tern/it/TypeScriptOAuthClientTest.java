package dev.tern.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.tern.protocol.Json;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import no.nav.security.mock.oauth2.MockOAuth2Server;
import no.nav.security.mock.oauth2.token.DefaultOAuth2TokenCallback;

/**
 * The official TypeScript SDK client ({@code @modelcontextprotocol/sdk}, {@code src/test/js/oauth-client.mjs}) runs
 * its whole OAuth flow against {@code tern serve --auth-issuer}: 401, the protected resource metadata, the
 * authorization server's metadata, authorization with PKCE, the token, the tool call; and the step-up when its first
 * token lacks the tool's scope (403 {@code insufficient_scope}). The authorization server is mock-oauth2-server on
 * 127.0.0.1, which logs the user in without a page and grants the scopes queued here.
 */
class TypeScriptOAuthClientTest {
    @TempDir
    Path temp;

    @Test
    void theSdkClientAuthorizesCallsAToolAndStepsUpWhenTheScopeIsTooSmall() throws Exception {
        NodeTools.node();
        Path npmDir = NodeTools.npmDir();
        MockOAuth2Server authorizationServer = new MockOAuth2Server();
        authorizationServer.start(InetAddress.getLoopbackAddress(), 0);
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        String resource = "http://127.0.0.1:" + port + "/mcp";
        String issuer = authorizationServer.issuerUrl("default").toString();
        // The user first consents to less than the tool needs; the step-up then grants users:read.
        authorizationServer.enqueueCallback(new DefaultOAuth2TokenCallback("default", "alice", "JWT",
                List.of(resource), Map.of("scope", "profile"), 3600));
        authorizationServer.enqueueCallback(new DefaultOAuth2TokenCallback("default", "alice", "JWT",
                List.of(resource), Map.of("scope", "profile users:read"), 3600));
        try (TernProcess tern = TernProcess.http(port, "user-directory", "--auth-issuer", issuer)) {
            ObjectNode config = Json.object();
            config.put("url", resource);
            config.put("npmDir", npmDir.toString());
            config.put("clientId", "tern-it-client");
            config.put("timeoutMs", TypeScriptClients.RUN_TIMEOUT.toMillis() - 10_000);
            Path configFile = Files.createTempFile(temp, "oauth-", ".json");
            Files.writeString(configFile, Json.mapper().writeValueAsString(config));
            Path script = NodeTools.root().resolve("tern-it/src/test/js/oauth-client.mjs");
            NodeTools.Result result = NodeTools.run(List.of(NodeTools.node().toString(), script.toString(),
                    configFile.toString()), NodeTools.root(), Map.of("TERN_NPM_DIR", npmDir.toString()),
                    TypeScriptClients.RUN_TIMEOUT);

            assertThat(result.timedOut()).as(result.describe()).isFalse();
            JsonNode summary = Json.mapper().readTree(result.stdout());
            String report = Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(summary)
                    + "\n--- client stderr\n" + result.stderr() + "\n--- tern stderr\n" + tern.stderr();
            assertThat(summary.path("failures").size()).as(report).isZero();
            assertThat(summary.path("ok").asBoolean()).as(report).isTrue();
            assertThat(summary.path("getUser").path("id").asString()).isEqualTo("7");
            assertThat(TypeScriptClients.names(summary.path("tools"))).contains("get_user", "search_users");

            List<String> flow = new ArrayList<>();
            summary.path("exchanges").forEach(e -> flow.add(e.path("method").asString() + " "
                    + e.path("path").asString() + " " + e.path("status").asInt()));
            assertThat(flow).as(report).startsWith("POST /mcp 401");
            assertThat(flow).as(report).contains("GET /.well-known/oauth-protected-resource/mcp 200",
                    "POST /default/token 200", "POST /mcp 403");
            assertThat(flow.stream().filter("POST /default/token 200"::equals).count()).as(report).isEqualTo(2);
            JsonNode stepUp = null;
            for (JsonNode e : summary.path("exchanges")) {
                if (e.path("status").asInt() == 403) {
                    stepUp = e;
                }
            }
            assertThat(stepUp.path("wwwAuthenticate").asString())
                    .startsWith("Bearer error=\"insufficient_scope\", scope=\"users:read\"");

            JsonNode authorizations = summary.path("authorizations");
            assertThat(authorizations.size()).as(report).isEqualTo(2);
            assertThat(authorizations.get(0).path("codeChallengeMethod").asString()).isEqualTo("S256");
            assertThat(authorizations.get(0).path("resource").asString()).isEqualTo(resource);
            assertThat(authorizations.get(1).path("scope").asString()).contains("users:read");
        } finally {
            authorizationServer.shutdown();
        }
    }
}
