package dev.tern.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import tools.jackson.databind.node.ObjectNode;

class ProtocolRulesTest {

    private static JsonRpcRequest request(String method, ObjectNode params) {
        return new JsonRpcRequest(RequestId.of(1), method, params);
    }

    @Test
    void aRequestIsOfThe2026EraExactlyWhenItsMetaNamesARevision() {
        ObjectNode modern = Json.object();
        modern.putObject(McpMeta.KEY).put(McpMeta.PROTOCOL_VERSION, "2026-07-28");
        ObjectNode otherMeta = Json.object();
        otherMeta.putObject(McpMeta.KEY).put(McpMeta.PROGRESS_TOKEN, 1);
        assertThat(ProtocolRules.isModern(request("tools/list", modern))).isTrue();
        assertThat(ProtocolRules.modernVersion(request("tools/list", modern)).stringValue()).isEqualTo("2026-07-28");
        assertThat(ProtocolRules.isModern(request("tools/list", otherMeta))).isFalse();
        assertThat(ProtocolRules.isModern(request("tools/list", null))).isFalse();
        assertThat(ProtocolRules.opensSession(request("initialize", Json.object()))).isTrue();
        assertThat(ProtocolRules.opensSession(request("initialize", modern))).as("a 2026-07-28 initialize opens nothing")
                .isFalse();
    }

    @Test
    void anUnsupportedVersionIsRefusedWithEveryRevisionSpokenAndTheOneAskedFor() {
        JsonRpcError error = ProtocolRules.unsupportedVersion("1999-01-01").toError();
        assertThat(error.code()).isEqualTo(ErrorCodes.UNSUPPORTED_PROTOCOL_VERSION);
        assertThat(error.data().path("requested").asString()).isEqualTo("1999-01-01");
        assertThat(error.data().path("supported").valueStream().map(v -> v.asString()).toList())
                .containsExactlyElementsOf(ProtocolVersion.supportedIds());
    }

    @Test
    void theRefusalsOfTheSessionOrderAreInvalidRequests() {
        assertThat(ProtocolRules.alreadyInitialized().code()).isEqualTo(ErrorCodes.INVALID_REQUEST);
        assertThat(ProtocolRules.idInUse(RequestId.of("x")).getMessage()).contains("\"x\"");
        assertThat(ProtocolRules.batchRefused().code()).isEqualTo(ErrorCodes.INVALID_REQUEST);
        assertThat(ProtocolRules.notInitialized().getMessage()).contains(McpMeta.PROTOCOL_VERSION);
    }
}
