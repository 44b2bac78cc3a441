package dev.tern.protocol;

import static dev.tern.protocol.Wire.assertRejected;
import static dev.tern.protocol.Wire.single;
import static dev.tern.protocol.Wire.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Bounds on every incoming message, and the JSON-level faults: duplicates, trailing data, empty input. */
class JsonRpcCodecLimitsTest {
    private final JsonRpcCodec codec = JsonRpcCodec.withDefaults();

    private Decoded decode(String json) {
        return codec.decode(utf8(json));
    }

    private static String request(String paramsBody) {
        return "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{" + paramsBody + "}}";
    }

    // ------------------------------------------------------------------ nesting depth

    @Test
    void deepNestingWithinTheLimitIsAccepted() {
        // depth: envelope object (1) + params (2) + 60 arrays = 62 <= 64
        String nested = "[".repeat(60) + "]".repeat(60);
        assertThat(single(decode(request("\"a\":" + nested)))).isInstanceOf(JsonRpcRequest.class);
    }

    @Test
    void nestingBeyondTheLimitIsRejectedWithoutAStackOverflow() {
        String nested = "[".repeat(100) + "]".repeat(100);
        assertRejected(decode(request("\"a\":" + nested)), ErrorCodes.PARSE_ERROR, null);
    }

    @Test
    void oneHundredThousandOpeningBracketsAreRejected() {
        assertRejected(decode("[".repeat(100_000)), ErrorCodes.PARSE_ERROR, null);
        assertRejected(decode("{\"a\":".repeat(50_000)), ErrorCodes.PARSE_ERROR, null);
    }

    @Test
    void depthLimitIsConfigurable() {
        JsonRpcCodec shallow = new JsonRpcCodec(new CodecLimits(1 << 20, 4, 1000, 100, 10));
        assertThat(single(shallow.decode(utf8(request("\"a\":[[]]"))))).isInstanceOf(JsonRpcRequest.class);
        assertRejected(shallow.decode(utf8(request("\"a\":[[[]]]"))), ErrorCodes.PARSE_ERROR, null);
    }

    // ------------------------------------------------------------------ strings

    @Test
    void stringsUpToTheLimitAreAccepted() {
        JsonRpcCodec small = new JsonRpcCodec(new CodecLimits(1 << 20, 64, 10_000, 100, 10));
        assertThat(single(small.decode(utf8(request("\"a\":\"" + "x".repeat(10_000) + "\""))))).isInstanceOf(JsonRpcRequest.class);
    }

    @Test
    void aStringLongerThanTheLimitIsInvalidParams() {
        JsonRpcCodec small = new JsonRpcCodec(new CodecLimits(1 << 20, 64, 10_000, 100, 10));
        assertRejected(small.decode(utf8(request("\"a\":\"" + "x".repeat(50_000) + "\""))), ErrorCodes.INVALID_PARAMS, null);
    }

    @Test
    void aHugeStringUnderTheDefaultMessageCapIsInvalidParams() {
        // 2 MiB string, default string cap 1 MiB, message cap 4 MiB
        assertRejected(decode(request("\"a\":\"" + "y".repeat(2 * 1024 * 1024) + "\"")), ErrorCodes.INVALID_PARAMS, null);
    }

    @Test
    void aHugePropertyNameIsRejected() {
        Decoded d = decode(request("\"" + "k".repeat(100_000) + "\":1"));
        assertThat(Wire.failure(d).error().code()).isIn(ErrorCodes.INVALID_PARAMS, ErrorCodes.PARSE_ERROR);
    }

    // ------------------------------------------------------------------ numbers

    @Test
    void aHundredThousandDigitIntegerIsRejected() {
        assertRejected(decode(request("\"n\":" + "9".repeat(100_000))), ErrorCodes.PARSE_ERROR, null);
    }

    @Test
    void aNumberLongerThanTheLimitIsRejected() {
        JsonRpcCodec small = new JsonRpcCodec(new CodecLimits(1 << 20, 64, 1000, 10, 10));
        assertThat(single(small.decode(utf8(request("\"n\":1234567890"))))).isInstanceOf(JsonRpcRequest.class);
        assertRejected(small.decode(utf8(request("\"n\":12345678901"))), ErrorCodes.PARSE_ERROR, null);
        assertRejected(small.decode(utf8(request("\"n\":1.2345678901"))), ErrorCodes.PARSE_ERROR, null);
    }

    @Test
    void anExponentBombParsesInBoundedTime() {
        // a short literal with a huge exponent: either refused or kept as a double, but never a BigDecimal expansion
        Decoded d = decode(request("\"n\":1e999999999"));
        if (d instanceof Decoded.Single s) {
            assertThat(((JsonRpcRequest) s.message()).params().get("n").isNumber()).isTrue();
        } else {
            assertThat(Wire.failure(d).error().code()).isIn(ErrorCodes.PARSE_ERROR, ErrorCodes.INVALID_PARAMS);
        }
    }

    // ------------------------------------------------------------------ message size

    @Test
    void aMessageAtTheSizeLimitIsAcceptedAndOneByteMoreIsRefused() {
        String base = request("\"a\":\"\"");
        int limit = 1000;
        String exact = request("\"a\":\"" + "z".repeat(limit - base.length()) + "\"");
        assertThat(utf8(exact)).hasSize(limit);
        JsonRpcCodec small = new JsonRpcCodec(CodecLimits.DEFAULT.withMaxMessageBytes(limit));
        assertThat(single(small.decode(utf8(exact)))).isInstanceOf(JsonRpcRequest.class);
        String over = request("\"a\":\"" + "z".repeat(limit - base.length() + 1) + "\"");
        assertRejected(small.decode(utf8(over)), ErrorCodes.PARSE_ERROR, null);
    }

    @Test
    void theSizeLimitCountsTheSliceNotTheBuffer() {
        JsonRpcCodec small = new JsonRpcCodec(CodecLimits.DEFAULT.withMaxMessageBytes(100));
        byte[] message = utf8("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
        byte[] buffer = new byte[10_000];
        java.util.Arrays.fill(buffer, (byte) ' ');
        System.arraycopy(message, 0, buffer, 5000, message.length);
        assertThat(single(small.decode(buffer, 5000, message.length))).isInstanceOf(JsonRpcRequest.class);
    }

    @Test
    void decodingASliceIgnoresTheBytesAroundIt() {
        byte[] buffer = utf8("garbage{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}garbage");
        assertThat(single(codec.decode(buffer, 7, buffer.length - 14))).isEqualTo(new JsonRpcRequest(RequestId.of(1), "ping", null));
    }

    // ------------------------------------------------------------------ batches

    @Test
    void aBatchAtTheLimitIsDecodedAndOneMoreIsRefused() {
        JsonRpcCodec small = new JsonRpcCodec(new CodecLimits(1 << 20, 64, 1000, 100, 3));
        String item = "{\"jsonrpc\":\"2.0\",\"method\":\"n\"}";
        Decoded three = small.decode(utf8("[" + item + "," + item + "," + item + "]"));
        assertThat(three).isInstanceOf(Decoded.Batch.class);
        assertThat(((Decoded.Batch) three).items()).hasSize(3);
        assertRejected(small.decode(utf8("[" + item + "," + item + "," + item + "," + item + "]")), ErrorCodes.INVALID_REQUEST, null);
    }

    @Test
    void theDefaultBatchLimitIsOneHundred() {
        String item = "{\"jsonrpc\":\"2.0\",\"method\":\"n\"}";
        String hundred = "[" + String.join(",", java.util.Collections.nCopies(100, item)) + "]";
        assertThat(decode(hundred)).isInstanceOf(Decoded.Batch.class);
        assertRejected(decode("[" + String.join(",", java.util.Collections.nCopies(101, item)) + "]"),
                ErrorCodes.INVALID_REQUEST, null);
    }

    // ------------------------------------------------------------------ duplicates, trailing data, empty input

    @Test
    void duplicateTopLevelKeysAreInvalidRequests() {
        assertThat(assertRejected(decode("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"method\":\"tools/call\"}"),
                ErrorCodes.INVALID_REQUEST, null).error().message()).isEqualTo("Invalid request: Duplicate property \"method\"");
        assertRejected(decode("{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"ping\"}"), ErrorCodes.INVALID_REQUEST, null);
        assertRejected(decode("{\"jsonrpc\":\"2.0\",\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"), ErrorCodes.INVALID_REQUEST, null);
    }

    @Test
    void duplicateKeysInsideParamsAreInvalidRequests() {
        assertRejected(decode(request("\"name\":\"a\",\"name\":\"b\"")), ErrorCodes.INVALID_REQUEST, null);
        assertThat(assertRejected(decode(request("\"arguments\":{\"x\":1,\"x\":2}")), ErrorCodes.INVALID_REQUEST, null)
                .error().message()).isEqualTo("Invalid request: Duplicate property \"x\"");
    }

    @Test
    void sameKeyInDifferentObjectsIsFine() {
        assertThat(single(decode(request("\"a\":{\"x\":1},\"b\":{\"x\":2}")))).isInstanceOf(JsonRpcRequest.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{\"jsonrpc\":\"2.0\",\"method\":\"a\"}{\"jsonrpc\":\"2.0\",\"method\":\"b\"}",
            "{\"jsonrpc\":\"2.0\",\"method\":\"a\"} x",
            "{\"jsonrpc\":\"2.0\",\"method\":\"a\"}]",
            "{\"jsonrpc\":\"2.0\",\"method\":\"a\"},",
            "{\"jsonrpc\":\"2.0\",\"method\":\"a\"} 1",
            "[{\"jsonrpc\":\"2.0\",\"method\":\"a\"}][]"})
    void trailingDataIsAParseError(String json) {
        assertRejected(decode(json), ErrorCodes.PARSE_ERROR, null);
    }

    @Test
    void trailingWhitespaceAndNewlinesAreFine() {
        assertThat(single(decode("  {\"jsonrpc\":\"2.0\",\"method\":\"a\"} \r\n\t"))).isInstanceOf(JsonRpcNotification.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "\n", "\r\n", " \t "})
    void emptyInputIsAParseError(String json) {
        assertRejected(decode(json), ErrorCodes.PARSE_ERROR, null);
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"jsonrpc\":\"2.0\",", "{", "{\"a\"", "not json", "{'jsonrpc':'2.0'}", "{\"a\":01}",
            "{\"a\":NaN}", "{\"a\":Infinity}", "{\"a\":\"\t\"}", "{\"a\":1,}", "[1,]", "{\"a\":tru}", "/*c*/{}",
            "{\"a\":\"\\x\"}", "\"unterminated"})
    void malformedJsonIsAParseError(String json) {
        assertRejected(decode(json), ErrorCodes.PARSE_ERROR, null);
    }

    @Test
    void limitsMustBePositive() {
        assertThatThrownBy(() -> new CodecLimits(0, 1, 1, 1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CodecLimits(1, 0, 1, 1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CodecLimits(1, 1, -1, 1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CodecLimits(1, 1, 1, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CodecLimits(1, 1, 1, 1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CodecLimits.DEFAULT.withMaxMessageBytes(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
