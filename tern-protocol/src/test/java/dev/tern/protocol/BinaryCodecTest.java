package dev.tern.protocol;

import static dev.tern.protocol.SpecExamples.normalized;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

import dev.tern.protocol.SpecExamples.Example;

import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.cbor.CBORMapper;

/** CBOR and MessagePack carry every official 2026-07-28 example without loss, and refuse bad bodies as JSON would. */
class BinaryCodecTest {
    private static final JsonRpcCodec JSON = JsonRpcCodec.withDefaults();
    private static final MessageCodec CBOR = MessageCodec.of(WireFormat.CBOR, JSON);
    private static final MessageCodec MSGPACK = MessageCodec.of(WireFormat.MSGPACK, JSON);

    static Stream<Arguments> everyExampleInEachBinaryFormat() {
        List<Arguments> all = new ArrayList<>();
        for (Example e : SpecExamples.all("2026-07-28")) {
            all.add(Arguments.of(WireFormat.CBOR, e));
            all.add(Arguments.of(WireFormat.MSGPACK, e));
        }
        return all.stream();
    }

    /** An example that is a whole message as it is; any other example as the result of a response. */
    private static JsonRpcMessage message(Example example) {
        if (example.json().has("jsonrpc")) {
            return ((Decoded.Single) JSON.decode(example.bytes())).message();
        }
        return new JsonRpcResult(RequestId.of(1), example.json());
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everyExampleInEachBinaryFormat")
    void everyExampleRoundTrips(WireFormat format, Example example) {
        MessageCodec codec = MessageCodec.of(format, JSON);
        JsonRpcMessage message = message(example);
        byte[] encoded = codec.encode(message);

        Decoded decoded = codec.decode(encoded, 0, encoded.length);
        assertThat(decoded).as("decoding %s", example).isInstanceOf(Decoded.Single.class);
        JsonRpcMessage back = ((Decoded.Single) decoded).message();
        assertThat(normalized(JSON.toTree(back))).isEqualTo(normalized(JSON.toTree(message)));
        assertThat(encoded).as("not JSON text").isNotEqualTo(JSON.encode(message));
    }

    @ParameterizedTest
    @EnumSource(value = WireFormat.class, names = {"CBOR", "MSGPACK"})
    void aResultHoldingRawJsonIsWrittenAsItsTree(WireFormat format) {
        MessageCodec codec = MessageCodec.of(format, JSON);
        ObjectNode result = Json.object();
        result.putArray("content").addObject().put("type", "text").put("text", "{\"a\":[1,2.5,\"x\"]}");
        result.set("structuredContent", Json.rawJson("{\"a\":[1,2.5,\"x\"]}"));
        byte[] encoded = codec.encode(new JsonRpcResult(RequestId.of("r"), result));

        JsonRpcResult back = (JsonRpcResult) ((Decoded.Single) codec.decode(encoded, 0, encoded.length)).message();
        assertThat(back.id()).isEqualTo(RequestId.of("r"));
        assertThat(back.result().path("structuredContent").path("a").path(1).doubleValue()).isEqualTo(2.5);
    }

    // ------------------------------------------------------------------ refusals

    private static byte[] cbor(Consumer<JsonGenerator> body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = new CBORMapper().createGenerator(out)) {
            body.accept(g);
        }
        return out.toByteArray();
    }

    private interface Packing {
        void pack(MessageBufferPacker p) throws IOException;
    }

    private static byte[] msgpack(Packing body) {
        try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
            body.pack(p);
            return p.toByteArray();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static JsonRpcError refusal(MessageCodec codec, byte[] body) {
        Decoded decoded = codec.decode(body, 0, body.length);
        assertThat(decoded).as("refused").isInstanceOf(Decoded.Invalid.class);
        return ((Decoded.Invalid) decoded).failure().error();
    }

    private static void pingStart(JsonGenerator g) {
        g.writeStartObject();
        g.writeStringProperty("jsonrpc", "2.0");
        g.writeNumberProperty("id", 1);
        g.writeStringProperty("method", "ping");
    }

    @Test
    void malformedCborIsAParseError() {
        byte[] good = CBOR.encode(new JsonRpcRequest(RequestId.of(1), "ping", null));
        JsonRpcError truncated = refusal(CBOR, Arrays.copyOf(good, good.length - 3));
        assertThat(truncated.code()).isEqualTo(ErrorCodes.PARSE_ERROR);
        assertThat(truncated.message()).startsWith("Parse error: malformed CBOR");

        byte[] trailing = Arrays.copyOf(good, good.length + 1);
        assertThat(refusal(CBOR, trailing).code()).isEqualTo(ErrorCodes.PARSE_ERROR);
        assertThat(refusal(CBOR, new byte[] {(byte) 0xff}).code()).isEqualTo(ErrorCodes.PARSE_ERROR);
    }

    @Test
    void cborIsRefusedWhereJsonWouldBe() {
        JsonRpcError duplicate = refusal(CBOR, cbor(g -> {
            pingStart(g);
            g.writeStringProperty("method", "tools/list");
            g.writeEndObject();
        }));
        assertThat(duplicate.code()).isEqualTo(ErrorCodes.INVALID_REQUEST);
        assertThat(duplicate.message()).contains("Duplicate property");

        JsonRpcError bytes = refusal(CBOR, cbor(g -> {
            pingStart(g);
            g.writeName("params");
            g.writeStartObject();
            g.writeName("blob");
            g.writeBinary(new byte[] {1, 2, 3});
            g.writeEndObject();
            g.writeEndObject();
        }));
        assertThat(bytes.code()).isEqualTo(ErrorCodes.PARSE_ERROR);
        assertThat(bytes.message()).contains("no JSON form");

        JsonRpcError notANumber = refusal(CBOR, cbor(g -> {
            pingStart(g);
            g.writeName("params");
            g.writeStartObject();
            g.writeNumberProperty("x", Double.NaN);
            g.writeEndObject();
            g.writeEndObject();
        }));
        assertThat(notANumber.message()).contains("no JSON form");

        JsonRpcError deep = refusal(CBOR, cbor(g -> {
            pingStart(g);
            g.writeName("params");
            for (int i = 0; i < 100; i++) {
                g.writeStartArray();
            }
            for (int i = 0; i < 100; i++) {
                g.writeEndArray();
            }
            g.writeEndObject();
        }));
        assertThat(deep.code()).isEqualTo(ErrorCodes.PARSE_ERROR);
        assertThat(deep.message()).contains("nesting depth");

        MessageCodec small = MessageCodec.of(WireFormat.CBOR, new JsonRpcCodec(new CodecLimits(1 << 20, 64, 10, 100, 100)));
        JsonRpcError longString = refusal(small, cbor(g -> {
            pingStart(g);
            g.writeName("params");
            g.writeStartObject();
            g.writeStringProperty("s", "x".repeat(11));
            g.writeEndObject();
            g.writeEndObject();
        }));
        assertThat(longString.code()).isEqualTo(ErrorCodes.INVALID_PARAMS);

        MessageCodec tiny = MessageCodec.of(WireFormat.CBOR, new JsonRpcCodec(CodecLimits.DEFAULT.withMaxMessageBytes(8)));
        assertThat(refusal(tiny, CBOR.encode(new JsonRpcRequest(RequestId.of(1), "ping", null))).message())
                .contains("exceeds the limit");
    }

    @Test
    void malformedMessagePackIsAParseError() {
        byte[] good = MSGPACK.encode(new JsonRpcRequest(RequestId.of(1), "ping", null));
        JsonRpcError truncated = refusal(MSGPACK, Arrays.copyOf(good, good.length - 3));
        assertThat(truncated.code()).isEqualTo(ErrorCodes.PARSE_ERROR);
        assertThat(truncated.message()).startsWith("Parse error: malformed MessagePack");

        assertThat(refusal(MSGPACK, Arrays.copyOf(good, good.length + 1)).message()).contains("trailing data");
        // an array header announcing two billion items in a five-byte message: refused before any allocation
        JsonRpcError huge = refusal(MSGPACK, new byte[] {(byte) 0xdd, (byte) 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff});
        assertThat(huge.message()).contains("announces more than the message holds");
        JsonRpcError overflow = refusal(MSGPACK, new byte[] {(byte) 0xdd, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff});
        assertThat(overflow.code()).isEqualTo(ErrorCodes.PARSE_ERROR);
        // a string that is not UTF-8
        JsonRpcError badUtf8 = refusal(MSGPACK, new byte[] {(byte) 0xa2, (byte) 0xc3, (byte) 0x28});
        assertThat(badUtf8.message()).contains("UTF-8");
    }

    @Test
    void messagePackIsRefusedWhereJsonWouldBe() {
        JsonRpcError duplicate = refusal(MSGPACK, msgpack(p -> {
            p.packMapHeader(4);
            p.packString("jsonrpc").packString("2.0");
            p.packString("id").packInt(1);
            p.packString("method").packString("ping");
            p.packString("method").packString("tools/list");
        }));
        assertThat(duplicate.code()).isEqualTo(ErrorCodes.INVALID_REQUEST);
        assertThat(duplicate.message()).contains("Duplicate property");

        JsonRpcError intKey = refusal(MSGPACK, msgpack(p -> {
            p.packMapHeader(1);
            p.packInt(7).packString("x");
        }));
        assertThat(intKey.message()).contains("keys must be strings");

        JsonRpcError binary = refusal(MSGPACK, msgpack(p -> {
            p.packMapHeader(4);
            p.packString("jsonrpc").packString("2.0");
            p.packString("id").packInt(1);
            p.packString("method").packString("ping");
            p.packString("params").packBinaryHeader(1);
            p.writePayload(new byte[] {1});
        }));
        assertThat(binary.code()).isEqualTo(ErrorCodes.PARSE_ERROR);
        assertThat(binary.message()).contains("no JSON form");

        JsonRpcError deep = refusal(MSGPACK, msgpack(p -> {
            for (int i = 0; i < 100; i++) {
                p.packArrayHeader(1);
            }
            p.packNil();
        }));
        assertThat(deep.message()).contains("nesting depth");

        JsonRpcError infinite = refusal(MSGPACK, msgpack(p -> {
            p.packMapHeader(1);
            p.packString("x").packDouble(Double.POSITIVE_INFINITY);
        }));
        assertThat(infinite.message()).contains("no JSON form");
    }

    @Test
    void aBinaryBatchIsCheckedItemByItemAsInJson() {
        for (MessageCodec codec : List.of(CBOR, MSGPACK)) {
            byte[] batch = codec.encodeBatch(List.of(new JsonRpcRequest(RequestId.of(1), "ping", null),
                    new JsonRpcNotification("notifications/initialized", null)));
            Decoded decoded = codec.decode(batch, 0, batch.length);
            assertThat(decoded).isInstanceOf(Decoded.Batch.class);
            assertThat(((Decoded.Batch) decoded).items()).hasSize(2);
        }
    }

    @Test
    void theMediaTypesNameTheirFormats() {
        assertThat(WireFormat.ofMediaType("application/cbor")).isEqualTo(WireFormat.CBOR);
        assertThat(WireFormat.ofMediaType("Application/Vnd.MsgPack ; q=1")).isEqualTo(WireFormat.MSGPACK);
        assertThat(WireFormat.ofMediaType("application/json; charset=utf-8")).isEqualTo(WireFormat.JSON);
        assertThat(WireFormat.ofMediaType("text/plain")).isNull();
        assertThat(MessageCodec.of(WireFormat.JSON, JSON)).isSameAs(JSON);
    }
}
