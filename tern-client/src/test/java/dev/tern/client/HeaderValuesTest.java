package dev.tern.client;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;

import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/** The value encoding and x-mcp-header rules of the 2026-07-28 Streamable HTTP transport, with the spec's examples. */
class HeaderValuesTest {

    @Test
    void specEncodingExamples() {
        assertThat(HeaderValues.encode("us-west1")).isEqualTo("us-west1");
        assertThat(HeaderValues.encode("Hello, 世界")).isEqualTo("=?base64?SGVsbG8sIOS4lueVjA==?=");
        assertThat(HeaderValues.encode(" padded ")).isEqualTo("=?base64?IHBhZGRlZCA=?=");
        assertThat(HeaderValues.encode("line1\nline2")).isEqualTo("=?base64?bGluZTEKbGluZTI=?=");
        assertThat(HeaderValues.encode("=?base64?literal?=")).isEqualTo("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
    }

    @Test
    void annotatedParametersBecomeHeaders() {
        JsonNode schema = Json.mapper().readTree("""
                {"type":"object","properties":{
                  "region":{"type":"string","x-mcp-header":"Region"},
                  "limit":{"type":"integer","x-mcp-header":"Limit"},
                  "opts":{"type":"object","properties":{"dry":{"type":"boolean","x-mcp-header":"Dry"}}},
                  "query":{"type":"string"}}}""");
        List<ParamHeaders.Param> params = ParamHeaders.of(schema);
        assertThat(params).extracting(ParamHeaders.Param::header).containsExactly("Region", "Limit", "Dry");
        JsonNode args = Json.mapper().readTree("{\"region\":\"Zürich\",\"limit\":42,\"opts\":{\"dry\":true},\"query\":\"q\"}");
        assertThat(ParamHeaders.headers(params, args)).containsExactly(
                "mcp-param-Region", "=?base64?WsO8cmljaA==?=", "mcp-param-Limit", "42", "mcp-param-Dry", "true");
        assertThat(ParamHeaders.headers(params, Json.mapper().readTree("{\"region\":null}"))).isEmpty();
    }

    @Test
    void invalidAnnotationsMakeTheToolInvalid() {
        for (String bad : List.of(
                "{\"properties\":{\"a\":{\"type\":\"number\",\"x-mcp-header\":\"A\"}}}",
                "{\"properties\":{\"a\":{\"type\":\"string\",\"x-mcp-header\":\"\"}}}",
                "{\"properties\":{\"a\":{\"type\":\"string\",\"x-mcp-header\":\"A B\"}}}",
                "{\"properties\":{\"a\":{\"type\":\"string\",\"x-mcp-header\":\"A\"},"
                        + "\"b\":{\"type\":\"string\",\"x-mcp-header\":\"a\"}}}",
                "{\"properties\":{\"a\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"x-mcp-header\":\"A\"}}}}",
                "{\"anyOf\":[{\"properties\":{\"a\":{\"type\":\"string\",\"x-mcp-header\":\"A\"}}}]}")) {
            assertThat(ParamHeaders.of(Json.mapper().readTree(bad))).as(bad).isNull();
        }
    }
}
