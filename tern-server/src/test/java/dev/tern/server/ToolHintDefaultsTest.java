package dev.tern.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import tools.jackson.databind.JsonNode;

/**
 * Exposes: @Tool's boolean hints are written as explicit false values. destructiveHint and openWorldHint default to
 * true in the spec, so a tool that only says idempotent = true claims to be non-destructive and closed-world.
 */
class ToolHintDefaultsTest {
    static class Service {
        @Tool(idempotent = true)
        public String retry() {
            return "";
        }
    }

    @Test
    void unsetHintsAreLeftOut() {
        try (McpServer s = McpServer.builder().register(new Service()).build(); Peer p = new Peer(s)) {
            JsonNode tool = p.modernRequest("tools/list", null).at("/result/tools/0");
            assertThat(tool.at("/annotations/idempotentHint").booleanValue()).isTrue();
            assertThat(tool.get("annotations").has("destructiveHint")).isFalse();
            assertThat(tool.get("annotations").has("openWorldHint")).isFalse();
        }
    }
}
