package dev.tern.transport.http;

import static dev.tern.transport.http.Mcp.args;
import static dev.tern.transport.http.Mcp.meta;
import static dev.tern.transport.http.Mcp.toolCall;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import dev.tern.protocol.Decoded;
import dev.tern.protocol.JsonRpcCodec;
import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.JsonRpcResult;
import dev.tern.protocol.MessageCodec;
import dev.tern.protocol.RequestId;
import dev.tern.protocol.WireFormat;

import org.msgpack.core.MessagePack;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.cbor.CBORMapper;

/** CBOR and MessagePack over WebSocket: negotiated by subprotocol ({@code mcp.cbor}, {@code mcp.msgpack}), binary frames. */
class WebSocketEncodingsTest {

    private static RawWebSocket open(Served served, String subprotocols) throws Exception {
        return new RawWebSocket(served.port(), "/mcp/ws",
                "Host: 127.0.0.1:" + served.port() + "\r\nSec-WebSocket-Protocol: " + subprotocols + "\r\n", true);
    }

    private static MessageCodec codec(WireFormat format) {
        return MessageCodec.of(format, JsonRpcCodec.withDefaults());
    }

    /** Sends a 2026-07-28 get_user call in {@code format}'s binary frame; the text of the answer, read from a binary frame. */
    private static String getUser(RawWebSocket raw, WireFormat format, String id) throws Exception {
        JsonRpcRequest call = new JsonRpcRequest(RequestId.of(id), "tools/call", meta(toolCall("get_user", args("id", id))));
        raw.frame(RawWebSocket.BINARY, true, true, codec(format).encode(call));
        RawWebSocket.Frame answer = raw.read();
        assertThat(answer.opcode()).as("the answer's frame type").isEqualTo(RawWebSocket.BINARY);
        Decoded decoded = codec(format).decode(answer.payload(), 0, answer.payload().length);
        assertThat(decoded).isInstanceOf(Decoded.Single.class);
        ObjectNode result = (ObjectNode) ((JsonRpcResult) ((Decoded.Single) decoded).message()).result();
        return result.path("content").path(0).path("text").asString();
    }

    /** The tree of a message, read by the format's own library rather than by the codec under test. */
    private static JsonNode tree(WireFormat format, byte[] body) throws java.io.IOException {
        if (format == WireFormat.CBOR) {
            return new CBORMapper().readTree(body);
        }
        try (var unpacker = MessagePack.newDefaultUnpacker(body)) {
            return Json.mapper().readTree(unpacker.unpackValue().toJson());
        }
    }

    @ParameterizedTest
    @EnumSource(value = WireFormat.class, names = {"CBOR", "MSGPACK"})
    void servesABinarySubprotocolInBinaryFrames(WireFormat format) throws Exception {
        try (Served served = new Served(); RawWebSocket raw = open(served, format.subprotocol())) {
            assertThat(raw.status()).isEqualTo(101);
            assertThat(raw.handshake).containsIgnoringCase("sec-websocket-protocol: " + format.subprotocol());
            assertThat(getUser(raw, format, "7")).contains("\"user7\"");
            assertThat(getUser(raw, format, "8")).contains("\"user8\"");
        }
    }

    @ParameterizedTest
    @CsvSource({"'mcp.msgpack, mcp', mcp.msgpack", "'chat, mcp.cbor, mcp', mcp.cbor", "'mcp, mcp.cbor', mcp"})
    void choosesTheFirstSubprotocolOfTheClientsListThatItServes(String asked, String chosen) throws Exception {
        try (Served served = new Served(); RawWebSocket raw = open(served, asked)) {
            assertThat(raw.status()).isEqualTo(101);
            assertThat(raw.handshake).containsIgnoringCase("sec-websocket-protocol: " + chosen + "\r\n");
        }
    }

    @ParameterizedTest
    @EnumSource(value = WireFormat.class, names = {"CBOR", "MSGPACK"})
    void answersAMalformedBinaryMessageWithAParseErrorNamingItsFormatAndReadsOn(WireFormat format) throws Exception {
        try (Served served = new Served(); RawWebSocket raw = open(served, format.subprotocol())) {
            // A map announcing more entries than follow: malformed in both formats.
            byte[] truncated = format == WireFormat.CBOR ? new byte[] {(byte) 0xA3, 0x61, 0x61}
                    : new byte[] {(byte) 0x83, (byte) 0xA1, 0x61};
            raw.frame(RawWebSocket.BINARY, true, true, truncated);
            RawWebSocket.Frame answer = raw.read();
            assertThat(answer.opcode()).isEqualTo(RawWebSocket.BINARY);
            JsonNode failure = tree(format, answer.payload());
            assertThat(failure.path("id").isNull()).as("%s", failure).isTrue();
            assertThat(failure.path("error").path("code").asInt()).isEqualTo(-32700);
            assertThat(failure.path("error").path("message").asString()).contains("malformed " + format.displayName());
            assertThat(getUser(raw, format, "9")).contains("\"user9\"");
        }
    }

    @ParameterizedTest
    @EnumSource(value = WireFormat.class, names = {"CBOR", "MSGPACK"})
    void closesATextMessageOnABinarySubprotocolWith1003(WireFormat format) throws Exception {
        try (Served served = new Served(); RawWebSocket raw = open(served, format.subprotocol())) {
            raw.frame(RawWebSocket.TEXT, true, true, "{}".getBytes(StandardCharsets.UTF_8));
            assertThat(raw.awaitClose()).isEqualTo(1003);
        }
    }
}
