package dev.tern.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import dev.tern.protocol.model.CallToolResult;

import tools.jackson.databind.JsonNode;

/**
 * Exposes: @Tool's boolean hints were written as explicit false values. destructiveHint and openWorldHint default to
 * true in the spec, so a tool that only said idempotent = true claimed to be non-destructive and closed-world; and a
 * tool could not say destructive = false at all.
 */
class ToolHintDefaultsTest {
    static class Service {
        @Tool(idempotent = Hint.TRUE)
        public String retry() {
            return "";
        }
    }

    static class Additive {
        @Tool(destructive = Hint.FALSE, openWorld = Hint.FALSE, readOnly = Hint.UNSET)
        public String append() {
            return "";
        }
    }

    static class Plain {
        @Tool
        public String plain() {
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

    @Test
    void hintsSaidFalseAreSentAsFalseAndTheOthersLeftOut() {
        try (McpServer s = McpServer.builder().register(new Additive()).build(); Peer p = new Peer(s)) {
            JsonNode result = p.modernRequest("tools/list", null).get("result");
            JsonNode annotations = result.at("/tools/0/annotations");
            assertThat(annotations.get("destructiveHint").isBoolean()).isTrue();
            assertThat(annotations.get("destructiveHint").booleanValue()).isFalse();
            assertThat(annotations.get("openWorldHint").booleanValue()).isFalse();
            assertThat(annotations.has("readOnlyHint")).isFalse();
            assertThat(annotations.has("idempotentHint")).isFalse();
            for (String revision : new String[] {"2025-11-25", "2026-07-28"}) {
                SpecSchemas.assertValid(revision, "ListToolsResult", result);
            }
        }
    }

    @Test
    void aToolThatSaysNoHintHasNoAnnotations() {
        try (McpServer s = McpServer.builder().register(new Plain()).build(); Peer p = new Peer(s)) {
            assertThat(p.modernRequest("tools/list", null).at("/result/tools/0").has("annotations")).isFalse();
        }
    }

    @Test
    void theSpecBuilderSaysEachHintOnlyWhenAsked() {
        ToolSpec spec = ToolSpec.builder("append").destructive(false).idempotent(true)
                .handler((ctx, args) -> CallToolResult.text("")).build();
        assertThat(spec.tool().annotations().destructiveHint()).isFalse();
        assertThat(spec.tool().annotations().idempotentHint()).isTrue();
        assertThat(spec.tool().annotations().readOnlyHint()).isNull();
        assertThat(spec.tool().annotations().openWorldHint()).isNull();
        ToolSpec both = ToolSpec.builder("read").readOnly(true).openWorld(false).readOnly(false)
                .handler((ctx, args) -> CallToolResult.text("")).build();
        assertThat(both.tool().annotations().readOnlyHint()).isFalse();
        assertThat(both.tool().annotations().openWorldHint()).isFalse();
    }
}
