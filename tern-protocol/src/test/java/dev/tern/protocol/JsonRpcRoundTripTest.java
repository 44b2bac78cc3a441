package dev.tern.protocol;

import static dev.tern.protocol.Wire.single;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** Every message kind survives encode then decode, and encoded messages are compact single lines. */
class JsonRpcRoundTripTest {
    private final JsonRpcCodec codec = JsonRpcCodec.withDefaults();

    private static ObjectNode params() {
        ObjectNode p = Json.object();
        p.put("name", "multi\nline \"quoted\" \u00e9\u20ac\ud83d\ude00 \\ \t tab");
        p.putObject("arguments").put("n", 1).put("x", 1.5).put("big", Long.MAX_VALUE).put("neg", -3).put("t", true)
                .putNull("nothing");
        p.putArray("list").add(1).add("two").addObject().put("three", 3);
        p.putObject("_meta").put("progressToken", "tok").putObject("io.modelcontextprotocol/clientCapabilities");
        return p;
    }

    static Stream<JsonRpcMessage> messages() {
        ObjectNode data = Json.object();
        data.putArray("supported").add("2026-07-28").add("2025-11-25");
        data.put("requested", "1900-01-01");
        return Stream.of(
                new JsonRpcRequest(RequestId.of(1), "tools/call", params()),
                new JsonRpcRequest(RequestId.of("abc"), "ping", null),
                new JsonRpcRequest(RequestId.of(""), "ping", Json.object()),
                new JsonRpcRequest(RequestId.of(Long.MAX_VALUE), "x", null),
                new JsonRpcRequest(RequestId.of(Long.MIN_VALUE), "x", null),
                new JsonRpcRequest(RequestId.of("1"), "x", null),
                new JsonRpcNotification("notifications/initialized", null),
                new JsonRpcNotification("notifications/progress", params()),
                new JsonRpcResult(RequestId.of(7), Json.object()),
                new JsonRpcResult(RequestId.of("r"), params()),
                new JsonRpcFailure(RequestId.of(3), JsonRpcError.of(ErrorCodes.METHOD_NOT_FOUND, "Method not found: x")),
                new JsonRpcFailure(RequestId.of("e"), new JsonRpcError(ErrorCodes.UNSUPPORTED_PROTOCOL_VERSION,
                        "Unsupported protocol version", data)),
                new JsonRpcFailure(RequestId.of(4), new JsonRpcError(-1, "app", Json.mapper().getNodeFactory().stringNode("s"))),
                new JsonRpcFailure(RequestId.of(5), new JsonRpcError(0, "", Json.mapper().getNodeFactory().arrayNode())));
    }

    @ParameterizedTest
    @MethodSource("messages")
    void encodeThenDecodeGivesTheSameMessage(JsonRpcMessage message) {
        byte[] encoded = codec.encode(message);
        assertThat(single(codec.decode(encoded))).isEqualTo(message);
    }

    @ParameterizedTest
    @MethodSource("messages")
    void encodedMessagesAreOneCompactLine(JsonRpcMessage message) {
        byte[] encoded = codec.encode(message);
        for (byte b : encoded) {
            assertThat(b).as("no CR or LF in %s", new String(encoded, StandardCharsets.UTF_8)).isNotIn((byte) '\n', (byte) '\r');
        }
        String text = new String(encoded, StandardCharsets.UTF_8);
        assertThat(text).startsWith("{\"jsonrpc\":\"2.0\",").doesNotContain("\": ").doesNotContain(", \"");
    }

    @ParameterizedTest
    @MethodSource("messages")
    void encodingToAStreamWritesTheSameBytesAndLeavesItOpen(JsonRpcMessage message) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream() {
            @Override
            public void close() {
                throw new AssertionError("the codec closed the stream");
            }
        };
        out.write('>');
        codec.encode(message, out);
        out.write('<');
        byte[] all = out.toByteArray();
        byte[] expected = codec.encode(message);
        assertThat(all).hasSize(expected.length + 2);
        assertThat(java.util.Arrays.copyOfRange(all, 1, all.length - 1)).isEqualTo(expected);
    }

    @Test
    void requestShape() {
        JsonNode tree = codec.toTree(new JsonRpcRequest(RequestId.of(12), "tools/list", null));
        assertThat(tree.toString()).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"tools/list\"}");
    }

    @Test
    void notificationHasNoId() {
        String text = new String(codec.encode(new JsonRpcNotification("notifications/initialized", null)), StandardCharsets.UTF_8);
        assertThat(text).isEqualTo("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    }

    @Test
    void stringIdsStayStringsAndIntegerIdsStayIntegers() {
        JsonNode s = codec.toTree(new JsonRpcResult(RequestId.of("7"), Json.object()));
        JsonNode n = codec.toTree(new JsonRpcResult(RequestId.of(7), Json.object()));
        assertThat(s.get("id").isString()).isTrue();
        assertThat(n.get("id").isIntegralNumber()).isTrue();
    }

    @Test
    void errorWithUnknownIdCarriesIdNull() {
        // JSON-RPC 2.0 section 5: when the id could not be detected it is Null
        String text = new String(codec.encode(new JsonRpcFailure(null, JsonRpcError.of(ErrorCodes.PARSE_ERROR, "Parse error"))),
                StandardCharsets.UTF_8);
        assertThat(text).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}");
    }

    @Test
    void errorWithoutDataHasNoDataMember() {
        JsonNode tree = codec.toTree(new JsonRpcFailure(RequestId.of(1), JsonRpcError.of(-32601, "m")));
        assertThat(tree.get("error").has("data")).isFalse();
        assertThat(tree.has("result")).isFalse();
    }

    @Test
    void resultHasNoErrorMember() {
        JsonNode tree = codec.toTree(new JsonRpcResult(RequestId.of(1), Json.object()));
        assertThat(tree.has("error")).isFalse();
        assertThat(tree.get("result").isObject()).isTrue();
    }

    @Test
    void batchEncodingIsOneJsonArrayOfTheMessages() {
        List<JsonRpcMessage> responses = List.of(
                new JsonRpcResult(RequestId.of(1), Json.object()),
                new JsonRpcFailure(RequestId.of("b"), JsonRpcError.of(-32601, "Method not found")));
        byte[] encoded = codec.encodeBatch(responses);
        String text = new String(encoded, StandardCharsets.UTF_8);
        assertThat(text).doesNotContain("\n");
        Decoded d = codec.decode(encoded);
        assertThat(d).isInstanceOf(Decoded.Batch.class);
        List<Decoded> items = ((Decoded.Batch) d).items();
        assertThat(items).hasSize(2);
        assertThat(single(items.get(0))).isEqualTo(responses.get(0));
        assertThat(single(items.get(1))).isEqualTo(responses.get(1));
    }

    @Test
    void encodedNonAsciiIsUtf8AndDecodesBack() {
        ObjectNode p = Json.object().put("s", "\u00e9\u20ac\ud83d\ude00");
        byte[] encoded = codec.encode(new JsonRpcNotification("n", p));
        assertThat(Utf8Check.problem(encoded, 0, encoded.length)).isNull();
        JsonRpcNotification back = (JsonRpcNotification) single(codec.decode(encoded));
        assertThat(back.params().get("s").stringValue()).isEqualTo("\u00e9\u20ac\ud83d\ude00");
    }

    @Test
    void controlCharactersAreEscaped() {
        ObjectNode p = Json.object().put("s", "a\u0000b\u001fc\u2028d");
        byte[] encoded = codec.encode(new JsonRpcNotification("n", p));
        for (byte b : encoded) {
            assertThat(b & 0xFF).isGreaterThanOrEqualTo(0x20);
        }
        JsonRpcNotification back = (JsonRpcNotification) single(codec.decode(encoded));
        assertThat(back.params().get("s").stringValue()).isEqualTo("a\u0000b\u001fc\u2028d");
    }

    @Test
    void nullsInsideTreesAreKept() {
        ObjectNode p = Json.object();
        p.putNull("n");
        p.putArray("a").addNull();
        JsonRpcNotification back = (JsonRpcNotification) single(codec.decode(codec.encode(new JsonRpcNotification("n", p))));
        assertThat(back.params()).isEqualTo(p);
    }
    // ------------------------------------------------------------------ lone surrogates on the way out

    @Test
    void loneSurrogatesAreWrittenAsReplacementCharacters() {
        ObjectNode p = Json.object();
        p.put("cut", "emoji \ud83d");
        p.put("low", "\ude00 first");
        p.put("middle", "a\ud800b\udc00c");
        p.put("pair", "ok \ud83d\ude00");
        p.put("bad \udbff key", 1);
        p.putArray("list").add("x\ud800");
        byte[] encoded = codec.encode(new JsonRpcNotification("n", p));
        assertThat(Utf8Check.problem(encoded, 0, encoded.length)).isNull();
        JsonRpcNotification back = (JsonRpcNotification) single(codec.decode(encoded));
        assertThat(back.params().get("cut").stringValue()).isEqualTo("emoji \ufffd");
        assertThat(back.params().get("low").stringValue()).isEqualTo("\ufffd first");
        assertThat(back.params().get("middle").stringValue()).isEqualTo("a\ufffdb\ufffdc");
        assertThat(back.params().get("pair").stringValue()).isEqualTo("ok \ud83d\ude00");
        assertThat(back.params().has("bad \ufffd key")).isTrue();
        assertThat(back.params().at("/list/0").stringValue()).isEqualTo("x\ufffd");
    }

    @Test
    void loneSurrogatesInEnvelopeStringsAreReplacedToo() {
        byte[] failure = codec.encode(new JsonRpcFailure(RequestId.of("id\ud800"), JsonRpcError.of(-32602, "Unknown tool: \udfff")));
        JsonRpcFailure f = (JsonRpcFailure) single(codec.decode(failure));
        assertThat(f.id()).isEqualTo(RequestId.of("id\ufffd"));
        assertThat(f.error().message()).isEqualTo("Unknown tool: \ufffd");
        byte[] request = codec.encode(new JsonRpcRequest(RequestId.of(1), "m\ud800", null));
        assertThat(((JsonRpcRequest) single(codec.decode(request))).method()).isEqualTo("m\ufffd");
        byte[] batch = codec.encodeBatch(List.of(new JsonRpcResult(RequestId.of(1), Json.object().put("t", "\ud800"))));
        assertThat(Utf8Check.problem(batch, 0, batch.length)).isNull();
    }

    @Test
    void wellFormedStringsAreLeftAlone() {
        String s = "plain \u00e9 \ud83d\ude00";
        assertThat(JsonRpcCodec.wellFormed(s)).isSameAs(s);
        assertThat(JsonRpcCodec.wellFormed("")).isEmpty();
        assertThat(JsonRpcCodec.wellFormed("\ud83d\ud83d\ude00")).isEqualTo("\ufffd\ud83d\ude00");
        assertThat(JsonRpcCodec.wellFormed("\ude00\ud83d")).isEqualTo("\ufffd\ufffd");
    }

    // ------------------------------------------------------------------ raw JSON members

    @Test
    void rawJsonIsWrittenAsItIsAndReadsBackAsTheSameTree() {
        String record = "{\"name\":\"Ada \\\"the\\\" first\",\"tags\":[\"x\",1,null],\"n\":{\"e\":\"\u00e9\"}}";
        ObjectNode result = Json.object();
        result.set("structuredContent", Json.rawJson(record));
        byte[] encoded = codec.encode(new JsonRpcResult(RequestId.of(1), result));
        JsonRpcResult back = (JsonRpcResult) single(codec.decode(encoded));

        assertThat(back.result().get("structuredContent")).isEqualTo(Json.mapper().readTree(record));
        assertThat(Json.materialize(result.get("structuredContent"))).isEqualTo(Json.mapper().readTree(record));
        assertThat(Json.isRawObject(result.get("structuredContent"))).isTrue();
        assertThat(Json.isRawObject(Json.rawJson("[1,2]"))).isFalse();
        assertThat(Json.isRawObject(Json.object())).isFalse();
        assertThat(Json.materialize(back.result())).isSameAs(back.result());
    }

    @Test
    void loneSurrogatesInRawJsonAreReplaced() {
        ObjectNode result = Json.object();
        result.set("structuredContent", Json.rawJson("{\"cut\":\"emoji \ud83d\"}"));
        byte[] encoded = codec.encode(new JsonRpcResult(RequestId.of(1), result));

        assertThat(Utf8Check.problem(encoded, 0, encoded.length)).isNull();
        JsonRpcResult back = (JsonRpcResult) single(codec.decode(encoded));
        assertThat(back.result().at("/structuredContent/cut").stringValue()).isEqualTo("emoji \ufffd");
    }

    @Test
    void rawJsonWithQuestionMarksKeepsThemAndStillLosesItsLoneSurrogates() {
        String asked = "{\"q\":\"why?\",\"pair\":\"\ud83d\ude00?\"}";
        assertThat(Json.rawText(Json.rawJson(asked))).isSameAs(asked);
        JsonNode cut = Json.rawJson("{\"q\":\"why?\",\"cut\":\"\ud83d\"}");
        assertThat(Json.rawText(cut)).isEqualTo("{\"q\":\"why?\",\"cut\":\"\ufffd\"}");
        ObjectNode result = Json.object();
        result.set("structuredContent", cut);
        byte[] encoded = codec.encode(new JsonRpcResult(RequestId.of(1), result));
        assertThat(Utf8Check.problem(encoded, 0, encoded.length)).isNull();
        JsonRpcResult back = (JsonRpcResult) single(codec.decode(encoded));
        assertThat(back.result().at("/structuredContent/cut").stringValue()).isEqualTo("\ufffd");
        assertThat(back.result().at("/structuredContent/q").stringValue()).isEqualTo("why?");
    }

    // ------------------------------------------------------------------ a value serialized once, written twice

    record Person(String name, String note, List<Integer> scores) {
    }

    static Stream<Person> awkwardValues() {
        return Stream.of(
                new Person("Ada", "plain", List.of(1, 2)),
                new Person("Quote \" and back\\slash", "line\nbreak\ttab\u0001bell", List.of()),
                new Person("\u00e9t\u00e9 \u4e2d\u6587", "emoji \ud83d\ude00 paired", null),
                new Person("slash / and \\u0041 as text", "\u2028 separator", List.of(-1)),
                new Person("\\uD83D and \\\\uDE00 as text", "\\", List.of()));
    }

    @ParameterizedTest
    @MethodSource("awkwardValues")
    void aValueSerializedOnceReadsBackTheSameAsStructuredContentAndAsText(Person value) {
        JsonNode structured = Json.rawJsonOf(value);
        String text = Json.rawText(structured);
        ObjectNode result = Json.object();
        result.putArray("content").addObject().put("type", "text").set("text", Json.stringNode(text, structured));
        result.set("structuredContent", structured);

        byte[] encoded = codec.encode(new JsonRpcResult(RequestId.of(7), result));
        JsonRpcResult back = (JsonRpcResult) single(codec.decode(encoded));

        JsonNode expected = Json.mapper().valueToTree(value);
        assertThat(text).isEqualTo(Json.mapper().writeValueAsString(value));
        assertThat(back.result().get("structuredContent")).isEqualTo(expected);
        assertThat(back.result().at("/content/0/text").stringValue()).isEqualTo(text);
        assertThat(Json.mapper().readTree(back.result().at("/content/0/text").stringValue())).isEqualTo(expected);
        // The same tree written by a plain mapper (no codec) reads back alike.
        assertThat(Json.mapper().readTree(Json.mapper().writeValueAsString(result)).at("/content/0/text").stringValue())
                .isEqualTo(text);
    }

    @Test
    void theStringNodeOfARawValueIsAPlainStringNodeToReaders() {
        JsonNode structured = Json.rawJsonOf(new Person("Ada", "n", List.of()));
        String text = Json.rawText(structured);
        JsonNode node = Json.stringNode(text, structured);

        assertThat(node.isString()).isTrue();
        assertThat(node.stringValue()).isEqualTo(text);
        assertThat(node).isEqualTo(Json.mapper().getNodeFactory().stringNode(text));
        assertThat(Json.isRawObject(structured)).isTrue();
        assertThat(Json.materialize(structured)).isEqualTo(Json.mapper().valueToTree(new Person("Ada", "n", List.of())));
        // An equal but different string, or another node, gets an ordinary string node.
        assertThat(Json.stringNode(new String(text), structured).getClass())
                .isEqualTo(Json.mapper().getNodeFactory().stringNode("x").getClass());
        assertThat(Json.stringNode(text, Json.object()).stringValue()).isEqualTo(text);
    }

    @Test
    void aLoneSurrogateInAValueSerializedOnceBecomesAReplacementCharacter() {
        JsonNode structured = Json.rawJsonOf(new Person("cut \ud83d", "x", null));
        String text = Json.rawText(structured);
        ObjectNode result = Json.object();
        result.putArray("content").addObject().put("type", "text").set("text", Json.stringNode(text, structured));
        result.set("structuredContent", structured);
        byte[] encoded = codec.encode(new JsonRpcResult(RequestId.of(1), result));

        assertThat(Utf8Check.problem(encoded, 0, encoded.length)).isNull();
        JsonRpcResult back = (JsonRpcResult) single(codec.decode(encoded));
        assertThat(back.result().at("/structuredContent/name").stringValue()).isEqualTo("cut \ufffd");
        assertThat(back.result().at("/content/0/text").stringValue()).contains("cut \ufffd");
    }
}
