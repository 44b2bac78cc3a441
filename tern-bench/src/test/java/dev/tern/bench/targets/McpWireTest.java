package dev.tern.bench.targets;

import dev.tern.bench.Operation;
import dev.tern.bench.Outcome;

import org.junit.jupiter.api.Test;

import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class McpWireTest {
    private static JsonNode json(String text) {
        return McpWire.JSON.readTree(text);
    }

    @Test
    void modernRequestsCarryTheirVersionAndClientInMeta() {
        JsonNode r = json(new McpWire(true).request(7, Operation.callTool("get_user", "{\"id\":\"42\"}")));

        assertThat(r.path("jsonrpc").asString()).isEqualTo("2.0");
        assertThat(r.path("id").asLong()).isEqualTo(7);
        assertThat(r.path("method").asString()).isEqualTo("tools/call");
        assertThat(r.path("params").path("name").asString()).isEqualTo("get_user");
        assertThat(r.path("params").path("arguments").path("id").asString()).isEqualTo("42");
        JsonNode meta = r.path("params").path("_meta");
        assertThat(meta.path("io.modelcontextprotocol/protocolVersion").asString()).isEqualTo("2026-07-28");
        assertThat(meta.path("io.modelcontextprotocol/clientInfo").path("name").asString()).isEqualTo("tern-bench");
    }

    @Test
    void legacyRequestsAreBareAndListsHaveNoParams() {
        McpWire legacy = new McpWire(false);
        JsonNode list = json(legacy.request(1, Operation.listTools()));
        JsonNode read = json(legacy.request(2, Operation.readResource("user://42")));

        assertThat(list.has("params")).isFalse();
        assertThat(list.path("method").asString()).isEqualTo("tools/list");
        assertThat(read.path("params").path("uri").asString()).isEqualTo("user://42");
        assertThat(read.path("params").has("_meta")).isFalse();
        assertThatThrownBy(() -> legacy.request(3, Operation.callTool("t", "[1]"))).hasMessageContaining("JSON object");
    }

    @Test
    void theLegacyVersionIsTheNegotiatedOne() {
        assertThat(McpWire.negotiated(json("{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":"
                + "\"2025-06-18\"}}")).version()).isEqualTo("2025-06-18");
        assertThat(McpWire.negotiated(null).version()).isEqualTo("2025-11-25");
    }

    @Test
    void repliesAreClassified() {
        assertThat(McpWire.classify(json("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}")).status())
                .isEqualTo(Outcome.Status.OK);
        Outcome error = McpWire.classify(json("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32602,"
                + "\"message\":\"Unknown tool\"}}"));
        assertThat(error.status()).isEqualTo(Outcome.Status.JSONRPC_ERROR);
        assertThat(error.detail()).isEqualTo("-32602 Unknown tool");
        Outcome isError = McpWire.classify(json("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"isError\":true,"
                + "\"content\":[{\"type\":\"text\",\"text\":\"No user with id 9\"}]}}"));
        assertThat(isError.status()).isEqualTo(Outcome.Status.TOOL_ERROR);
        assertThat(isError.detail()).isEqualTo("No user with id 9");
        assertThat(McpWire.classify(json("{\"jsonrpc\":\"2.0\",\"id\":1}")).status())
                .isEqualTo(Outcome.Status.TRANSPORT);
    }

    @Test
    void onlyAPlainResultTakesTheTokenPath() {
        String json = "application/json";
        assertThat(McpWire.isPlainResult(json, bytes("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":"
                + "[{\"type\":\"text\",\"text\":\"{\\\"isError\\\":true}\"}],\"isError\":false}}"))).isTrue();
        assertThat(McpWire.isPlainResult(json, bytes("{\"result\":{\"structuredContent\":{\"isError\":true}}}")))
                .isTrue();
        assertThat(McpWire.isPlainResult(json, bytes("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"isError\":true}}")))
                .isFalse();
        assertThat(McpWire.isPlainResult(json, bytes("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1}}")))
                .isFalse();
        assertThat(McpWire.isPlainResult(json, bytes("{\"jsonrpc\":\"2.0\",\"id\":1}"))).isFalse();
        assertThat(McpWire.isPlainResult(json, bytes("{\"result\":{},\"result\":{}}"))).isFalse();
        assertThat(McpWire.isPlainResult(json, bytes("{\"result\":{}} trailing"))).isFalse();
        assertThat(McpWire.isPlainResult(json, bytes("{\"result\":{\"content\":[}}"))).isFalse();
        assertThat(McpWire.isPlainResult(json, bytes("[{\"result\":{}}]"))).isFalse();
        assertThat(McpWire.isPlainResult("text/event-stream", bytes("{\"result\":{}}"))).isFalse();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
}
