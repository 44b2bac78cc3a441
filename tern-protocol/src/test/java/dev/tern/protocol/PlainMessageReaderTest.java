package dev.tern.protocol;

import static dev.tern.protocol.Wire.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import tools.jackson.databind.node.DoubleNode;
import tools.jackson.databind.node.IntNode;
import tools.jackson.databind.node.LongNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The one-pass reader of plain requests against the tree reader, the oracle: every message either is read by the
 * one-pass reader to exactly what the tree reader makes of it (node types included), or left to the tree reader.
 */
class PlainMessageReaderTest {
    private static final CodecLimits SMALL = new CodecLimits(1 << 20, 6, 20, 10, 10);
    private static final String MODERN_CALL = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
            + "\"name\":\"get_user\",\"arguments\":{\"id\":\"7\"},\"_meta\":{"
            + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
            + "\"io.modelcontextprotocol/clientCapabilities\":{},"
            + "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"tern-bench\",\"version\":\"1\"}}}}";

    private final JsonRpcCodec codec = JsonRpcCodec.withDefaults();
    private final JsonRpcCodec small = new JsonRpcCodec(SMALL);
    private final PlainMessageReader reader = new PlainMessageReader(codec.mapper());
    private final PlainMessageReader smallReader = new PlainMessageReader(small.mapper());

    static Stream<String> plain() {
        return Stream.of(
                MODERN_CALL,
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":3}}",
                "{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"method\":\"ping\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":-9223372036854775808,\"method\":\"ping\",\"params\":null}",
                "{\"jsonrpc\":\"2.0\",\"id\":9223372036854775807,\"method\":\"ping\",\"params\":{}}",
                "{\"params\":{\"a\":1},\"method\":\"x\",\"id\":0,\"jsonrpc\":\"2.0\"}",
                " \r\n\t{ \"jsonrpc\" : \"2.0\" , \"id\" : 2 , \"method\" : \"m\" } \n",
                "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"m\",\"params\":{\"ints\":[0,-0,2147483647,-2147483648,"
                        + "2147483648,-2147483649,9223372036854775807],\"flags\":[true,false,null],"
                        + "\"nested\":[[],{},[{\"a\":[{}]}]],\"text\":\"\\u00e9\\n\\\"\\ud83d\\ude00\",\"\":\"\"}}",
                "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ünïcødé/方法\",\"params\":{\"ключ\":\"значение 😀\"}}",
                "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"m\",\"params\":{\"x\":1.5,\"y\":-2e-3,\"z\":1E+2,"
                        + "\"negativeZero\":-0.0,\"tiny\":4.9e-324,\"huge\":1e308,\"overflow\":1e400,"
                        + "\"long\":0.30000000000000004441}}");
    }

    static Stream<String> leftToTheTree() {
        return Stream.of(
                "[" + MODERN_CALL + "]",
                "[]",
                "\"2.0\"",
                "null",
                "{}",
                "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"m\"}",
                "{\"jsonrpc\":2.0,\"id\":1,\"method\":\"m\"}",
                "{\"id\":1,\"method\":\"m\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"m\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":1e2,\"method\":\"m\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":9223372036854775808,\"method\":\"m\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"m\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"m\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"m\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}",
                "{\"jsonrpc\":\"2.0\",\"id\":1}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":[1]}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":\"p\"}",
                "{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":[1]}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"m\"}",
                "{\"jsonrpc\":\"2.0\",\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":1,\"a\":2}}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":[{\"b\":1,\"b\":1}]}}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"extra\":{\"b\":1}}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"result\":{}}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ok\":true}}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32600,\"message\":\"no\"}}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"big\":123456789012345678901234567890}}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"} {}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}x",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":[1,2}}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":01}}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":NaN}}",
                "{'jsonrpc':'2.0','id':1,'method':'m'}",
                "{\"jsonrpc\":\"2.0\",/*c*/\"id\":1,\"method\":\"m\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":" + "[".repeat(70) + "]".repeat(70) + "}}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":" + "{\"a\":".repeat(50_000),
                "");
    }

    static Stream<String> beyondTheSmallLimits() {
        return Stream.of(
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":[[[[[]]]]]}}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":\"" + "x".repeat(21) + "\"}}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"" + "k".repeat(21) + "\":1}}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"" + "m".repeat(21) + "\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":12345678901,\"method\":\"m\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"n\":-12345678901}}");
    }

    @ParameterizedTest
    @MethodSource("plain")
    void readsPlainMessagesAsTheTreeReaderDoes(String json) {
        byte[] bytes = utf8(json);
        Decoded plain = reader.read(bytes, 0, bytes.length);
        assertThat(plain).isNotNull().isEqualTo(codec.decodeAsTree(bytes, 0, bytes.length));
        assertThat(codec.decode(bytes)).isEqualTo(plain);
    }

    @ParameterizedTest
    @MethodSource("leftToTheTree")
    void leavesEverythingElseToTheTreeReader(String json) {
        byte[] bytes = utf8(json);
        assertThat(reader.read(bytes, 0, bytes.length)).isNull();
        assertThat(codec.decode(bytes)).isEqualTo(codec.decodeAsTree(bytes, 0, bytes.length));
    }

    @ParameterizedTest
    @MethodSource("beyondTheSmallLimits")
    void keepsTheCodecsLimits(String json) {
        byte[] bytes = utf8(json);
        assertThat(smallReader.read(bytes, 0, bytes.length)).isNull();
        assertThat(small.decode(bytes)).isInstanceOf(Decoded.Invalid.class)
                .isEqualTo(small.decodeAsTree(bytes, 0, bytes.length));
        assertThat(reader.read(bytes, 0, bytes.length)).as("within the default limits").isNotNull();
    }

    @Test
    void integersKeepTheirSize() {
        byte[] bytes = utf8("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"i\":7,\"l\":7000000000}}");
        ObjectNode params = ((JsonRpcRequest) ((Decoded.Single) reader.read(bytes, 0, bytes.length)).message()).params();
        assertThat(params.get("i")).isInstanceOf(IntNode.class);
        assertThat(params.get("l")).isInstanceOf(LongNode.class);
    }

    @Test
    void leavesDeepNestingToTheTreeReaderWhateverTheLimit() {
        JsonRpcCodec deep = new JsonRpcCodec(new CodecLimits(1 << 20, 20_000, 1000, 100, 10));
        PlainMessageReader deepReader = new PlainMessageReader(deep.mapper());
        byte[] within = utf8("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":"
                + "[".repeat(63) + "]".repeat(63) + "}}");
        byte[] beyond = utf8("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":"
                + "[".repeat(1_000) + "]".repeat(1_000) + "}}");
        assertThat(deepReader.read(within, 0, within.length)).isNotNull();
        assertThat(deepReader.read(beyond, 0, beyond.length)).isNull();
        assertThat(deep.decode(beyond)).isInstanceOf(Decoded.Single.class)
                .isEqualTo(deep.decodeAsTree(beyond, 0, beyond.length));
    }

    @Test
    void fractionsAreDoubles() {
        byte[] bytes = utf8("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"d\":2.5}}");
        ObjectNode params = ((JsonRpcRequest) ((Decoded.Single) reader.read(bytes, 0, bytes.length)).message()).params();
        assertThat(params.get("d")).isInstanceOf(DoubleNode.class);
        assertThat(params.get("d").doubleValue()).isEqualTo(2.5);
    }

    @Test
    void readsAMessageInsideALargerBuffer() {
        byte[] message = utf8(MODERN_CALL);
        byte[] buffer = new byte[message.length + 20];
        java.util.Arrays.fill(buffer, (byte) '[');
        System.arraycopy(message, 0, buffer, 10, message.length);
        assertThat(reader.read(buffer, 10, message.length)).isEqualTo(codec.decode(message));
    }
}
