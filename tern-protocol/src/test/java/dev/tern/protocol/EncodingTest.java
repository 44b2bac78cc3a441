package dev.tern.protocol;

import static dev.tern.protocol.Wire.assertRejected;
import static dev.tern.protocol.Wire.bytes;
import static dev.tern.protocol.Wire.single;
import static dev.tern.protocol.Wire.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** MCP messages are UTF-8 without a byte-order mark; anything else is a parse error, never transcoded. */
class EncodingTest {
    private static final String HEAD = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"s\":\"";
    private static final String TAIL = "\"}}";

    private final JsonRpcCodec codec = JsonRpcCodec.withDefaults();

    private static byte[] withString(Object... middle) {
        Object[] parts = new Object[middle.length + 2];
        parts[0] = HEAD;
        System.arraycopy(middle, 0, parts, 1, middle.length);
        parts[parts.length - 1] = TAIL;
        return bytes(parts);
    }

    private String decodedString(byte[] message) {
        JsonRpcRequest r = (JsonRpcRequest) single(codec.decode(message));
        return r.params().get("s").stringValue();
    }

    // ------------------------------------------------------------------ BOMs and other encodings

    @Test
    void utf8ByteOrderMarkIsRejected() {
        assertRejected(codec.decode(bytes(0xEF, 0xBB, 0xBF, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}")),
                ErrorCodes.PARSE_ERROR, null);
    }

    @Test
    void utf16WithByteOrderMarkIsRejected() {
        String json = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
        byte[] be = json.getBytes(StandardCharsets.UTF_16); // writes FE FF first
        assertRejected(codec.decode(be), ErrorCodes.PARSE_ERROR, null);
        byte[] le = json.getBytes(StandardCharsets.UTF_16LE);
        byte[] leBom = new byte[le.length + 2];
        leBom[0] = (byte) 0xFF;
        leBom[1] = (byte) 0xFE;
        System.arraycopy(le, 0, leBom, 2, le.length);
        assertRejected(codec.decode(leBom), ErrorCodes.PARSE_ERROR, null);
    }

    @Test
    void utf16WithoutByteOrderMarkIsRejected() {
        String json = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
        assertRejected(codec.decode(json.getBytes(StandardCharsets.UTF_16BE)), ErrorCodes.PARSE_ERROR, null);
        assertRejected(codec.decode(json.getBytes(StandardCharsets.UTF_16LE)), ErrorCodes.PARSE_ERROR, null);
    }

    @Test
    void utf32IsRejected() {
        String json = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
        assertRejected(codec.decode(json.getBytes(java.nio.charset.Charset.forName("UTF-32BE"))), ErrorCodes.PARSE_ERROR, null);
        assertRejected(codec.decode(bytes(0xFF, 0xFE, 0x00, 0x00, "{}")), ErrorCodes.PARSE_ERROR, null);
        assertRejected(codec.decode(bytes(0x00, 0x00, 0xFE, 0xFF, "{}")), ErrorCodes.PARSE_ERROR, null);
    }

    @Test
    void latin1IsNotTranscoded() {
        byte[] latin1 = (HEAD + "caf\u00e9" + TAIL).getBytes(StandardCharsets.ISO_8859_1);
        assertRejected(codec.decode(latin1), ErrorCodes.PARSE_ERROR, null);
    }

    @Test
    void nulBytesAreRejected() {
        assertRejected(codec.decode(withString("a", 0x00, "b")), ErrorCodes.PARSE_ERROR, null);
        assertRejected(codec.decode(bytes("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", 0x00)), ErrorCodes.PARSE_ERROR, null);
    }

    // ------------------------------------------------------------------ valid UTF-8

    static Stream<Arguments> validUtf8() {
        return Stream.of(
                Arguments.of(List.of(0xC3, 0xA9), "\u00e9"),
                Arguments.of(List.of(0xDF, 0xBF), "\u07ff"),
                Arguments.of(List.of(0xE2, 0x82, 0xAC), "\u20ac"),
                Arguments.of(List.of(0xED, 0x9F, 0xBF), "\ud7ff"),
                Arguments.of(List.of(0xEE, 0x80, 0x80), "\ue000"),
                Arguments.of(List.of(0xEF, 0xBF, 0xBF), "\uffff"),
                Arguments.of(List.of(0xF0, 0x90, 0x80, 0x80), "\ud800\udc00"),
                Arguments.of(List.of(0xF0, 0x9F, 0x98, 0x80), "\ud83d\ude00"),
                Arguments.of(List.of(0xF4, 0x8F, 0xBF, 0xBF), "\udbff\udfff"));
    }

    @ParameterizedTest
    @MethodSource("validUtf8")
    void validMultiByteSequencesDecode(List<Integer> sequence, String expected) {
        assertThat(decodedString(withString(sequence.toArray()))).isEqualTo(expected);
    }

    @Test
    void validUtf8InPropertyNamesDecodes() {
        byte[] message = bytes("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"", 0xE2, 0x82, 0xAC, "\":1}}");
        JsonRpcRequest r = (JsonRpcRequest) single(codec.decode(message));
        assertThat(r.params().has("\u20ac")).isTrue();
    }

    @Test
    void escapedSurrogatePairsDecode() {
        assertThat(decodedString(utf8(HEAD + "\\uD83D\\uDE00" + TAIL))).isEqualTo("\ud83d\ude00");
        assertThat(decodedString(utf8(HEAD + "a\\ud83d\\ude00b" + TAIL))).isEqualTo("a\ud83d\ude00b");
    }

    @Test
    void anEscapedBackslashBeforeUIsNotAnEscape() {
        // the text \uD800 preceded by an escaped backslash: a backslash, then the six characters "uD800"
        assertThat(decodedString(utf8(HEAD + "\\\\uD800" + TAIL))).isEqualTo("\\uD800");
        assertThat(decodedString(utf8(HEAD + "\\\\\\\\uDC00" + TAIL))).isEqualTo("\\\\uDC00");
    }

    @Test
    void escapedNonSurrogatesDecode() {
        assertThat(decodedString(utf8(HEAD + "\\u0041\\u00e9\\uFFFF\\n\\\"" + TAIL))).isEqualTo("A\u00e9\uffff\n\"");
    }

    // ------------------------------------------------------------------ invalid UTF-8

    static Stream<Arguments> invalidUtf8() {
        return Stream.of(
                Arguments.of("bad continuation", List.of(0xC3, 0x28)),
                Arguments.of("stray continuation", List.of(0xA0)),
                Arguments.of("stray continuation 0x80", List.of(0x80)),
                Arguments.of("truncated 2-byte", List.of(0xC3)),
                Arguments.of("truncated 3-byte", List.of(0xE2, 0x82)),
                Arguments.of("truncated 4-byte", List.of(0xF0, 0x9F, 0x98)),
                Arguments.of("overlong slash C0", List.of(0xC0, 0xAF)),
                Arguments.of("overlong C1", List.of(0xC1, 0xBF)),
                Arguments.of("overlong 3-byte", List.of(0xE0, 0x80, 0xAF)),
                Arguments.of("overlong 3-byte max", List.of(0xE0, 0x9F, 0xBF)),
                Arguments.of("overlong 4-byte", List.of(0xF0, 0x80, 0x80, 0xAF)),
                Arguments.of("overlong 4-byte max", List.of(0xF0, 0x8F, 0xBF, 0xBF)),
                Arguments.of("above U+10FFFF", List.of(0xF4, 0x90, 0x80, 0x80)),
                Arguments.of("F5 lead", List.of(0xF5, 0x80, 0x80, 0x80)),
                Arguments.of("F8 lead", List.of(0xF8, 0x88, 0x80, 0x80, 0x80)),
                Arguments.of("FE byte", List.of(0xFE)),
                Arguments.of("FF byte", List.of(0xFF)),
                Arguments.of("encoded high surrogate", List.of(0xED, 0xA0, 0x80)),
                Arguments.of("encoded low surrogate", List.of(0xED, 0xBF, 0xBF)),
                Arguments.of("encoded surrogate pair (CESU-8)", List.of(0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80)),
                Arguments.of("3-byte lead then ASCII", List.of(0xE2, 0x41, 0x41)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidUtf8")
    void invalidUtf8InAStringIsAParseError(String what, List<Integer> sequence) {
        assertRejected(codec.decode(withString(sequence.toArray())), ErrorCodes.PARSE_ERROR, null);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidUtf8")
    void invalidUtf8InAPropertyNameIsAParseError(String what, List<Integer> sequence) {
        Object[] parts = new Object[sequence.size() + 2];
        parts[0] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"k";
        for (int i = 0; i < sequence.size(); i++) {
            parts[i + 1] = sequence.get(i);
        }
        parts[parts.length - 1] = "\":1}}";
        assertRejected(codec.decode(bytes(parts)), ErrorCodes.PARSE_ERROR, null);
    }

    @ParameterizedTest
    @MethodSource("validUtf8")
    void validUtf8PassesTheCheckItself(List<Integer> sequence, String expected) {
        byte[] b = withString(sequence.toArray());
        assertThat(Utf8Check.problem(b, 0, b.length)).isNull();
    }

    @Test
    void invalidUtf8OutsideStringsIsAParseError() {
        assertRejected(codec.decode(bytes("{\"jsonrpc\":\"2.0\",", 0xC3, 0xA9, "\"id\":1,\"method\":\"ping\"}")),
                ErrorCodes.PARSE_ERROR, null);
        assertRejected(codec.decode(bytes("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", 0xFF)), ErrorCodes.PARSE_ERROR, null);
    }

    @Test
    void theCheckOnlyLooksAtTheSlice() {
        byte[] inner = utf8("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
        byte[] buffer = bytes(0xFF, 0xED, 0xA0, 0x80, "\"\\uD800\"");
        byte[] all = new byte[buffer.length + inner.length + buffer.length];
        System.arraycopy(buffer, 0, all, 0, buffer.length);
        System.arraycopy(inner, 0, all, buffer.length, inner.length);
        System.arraycopy(buffer, 0, all, buffer.length + inner.length, buffer.length);
        assertThat(single(codec.decode(all, buffer.length, inner.length))).isInstanceOf(JsonRpcRequest.class);
    }

    // ------------------------------------------------------------------ escaped lone surrogates

    @ParameterizedTest
    @ValueSource(strings = {"\\uD800", "\\udbff", "\\uDC00", "\\uDFFF", "a\\uD800b", "\\uD800\\u0041", "\\uD800\\n",
            "\\uD800\\uD800", "\\uDC00\\uD800", "\\uDE00\\uD83D", "\\uD83D\\\\uDE00", "x\\uD83D"})
    void escapedLoneSurrogatesAreAParseError(String escaped) {
        assertRejected(codec.decode(utf8(HEAD + escaped + TAIL)), ErrorCodes.PARSE_ERROR, null);
    }

    @Test
    void escapedLoneSurrogateInAPropertyNameIsAParseError() {
        assertRejected(codec.decode(utf8("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"\\uD800\":1}}")),
                ErrorCodes.PARSE_ERROR, null);
    }

    @Test
    void escapedLoneSurrogateInTheIdIsAParseError() {
        assertRejected(codec.decode(utf8("{\"jsonrpc\":\"2.0\",\"id\":\"\\uDC00\",\"method\":\"m\"}")), ErrorCodes.PARSE_ERROR, null);
    }
}
