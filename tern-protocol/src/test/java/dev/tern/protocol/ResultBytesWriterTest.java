package dev.tern.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A tool result repeating a value serialized once is written without the generator, to the very bytes the generator
 * writes: Jackson's own output is the oracle for every message here.
 */
class ResultBytesWriterTest {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** Characters that make escaping and UTF-8 interesting, drawn more often than their share of Unicode. */
    private static final String AWKWARD = "\"\\/\b\f\n\r\t\u0000\u0001\u001f\u007f\u0080\u00e9\u2028\u2029\u20ac\uffff"
            + "\ud83d\ude00\ud83d\ude00<>&'";

    private final JsonRpcCodec codec = JsonRpcCodec.withDefaults();

    record User(String id, String name, String email, Map<String, Object> address, List<String> roles, boolean active) {}

    @Test
    void theGetUserResultIsWrittenWithoutTheGeneratorToTheGeneratorsBytes() {
        User user = new User("42", "Alan Matsumoto", "amatsumoto42@example.com",
                Map.of("street", "142 Market Street", "city", "Tallinn"), List.of("member"), true);
        JsonRpcResult message = new JsonRpcResult(RequestId.of(42), toolResult(Json.rawJsonOf(user), null));

        ByteArrayOutputStream direct = new ByteArrayOutputStream();
        assertThat(ResultBytesWriter.write(message.id(), message.result(), direct))
                .as("the common tool result takes the direct path").isTrue();
        assertThat(direct.toString(StandardCharsets.UTF_8)).isEqualTo(generatorText(message));
        assertThat(codec.encode(message)).isEqualTo(direct.toByteArray());
    }

    @Test
    void everyAsciiCharacterAndManyOthersAreEscapedAsTheGeneratorEscapesThem() {
        for (char c = 0; c < 0x100; c++) {
            String text = "a" + c + "b" + c;
            assertSameBytes(RequestId.of(1), toolResult(Json.rawJson(text), null), "the character U+" + (int) c);
            assertSameBytes(RequestId.of(1), toolResult(Json.rawJsonOf(Map.of("k" + c, "v" + c)), null),
                    "the character U+" + (int) c + " in a serialized value");
        }
        for (int i = 0; i < AWKWARD.length(); i++) {
            assertSameBytes(RequestId.of("s"), toolResult(Json.rawJsonOf(List.of(AWKWARD.substring(i))), null),
                    "the tail of the awkward characters from " + i);
        }
    }

    @Test
    void generatedResultsAreWrittenToTheGeneratorsBytes() {
        Random random = new Random(29);
        int direct = 0;
        for (int i = 0; i < 3_000; i++) {
            JsonNode value = Json.rawJsonOf(randomValue(random, 0));
            ObjectNode extra = random.nextInt(3) == 0 ? randomObject(random, 1) : null;
            ObjectNode result = toolResult(value, extra);
            RequestId id = randomId(random);
            assertSameBytes(id, result, "generated result " + i + ": " + result);
            if (ResultBytesWriter.write(id, result, new ByteArrayOutputStream())) {
                direct++;
            }
        }
        assertThat(direct).as("results written without the generator, of 3,000").isGreaterThan(1_000);
    }

    @Test
    void rawTextThatIsNotCompactJsonIsEscapedAsTheGeneratorEscapesIt() {
        Random random = new Random(2029);
        for (int i = 0; i < 2_000; i++) {
            String text = randomString(random, 60);
            assertSameBytes(RequestId.of(i), toolResult(Json.rawJson(text), null), "raw text " + i);
        }
        assertSameBytes(RequestId.of(1), toolResult(Json.rawJson("{\n  \"pretty\" : [ 1, 2 ]\n}\t"), null), "pretty JSON");
    }

    @Test
    void aResultOfSomeKilobytesIsWrittenDirectlyUpToTheBufferSize() {
        for (int length : new int[] {1_000, 1_400, 2_500, 3_700, 3_900}) {
            ObjectNode result = toolResult(Json.rawJsonOf(Map.of("a", "x\"" + "xy".repeat(length / 2))), null);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            assertThat(ResultBytesWriter.write(RequestId.of(1), result, out)).as("written directly, " + length).isTrue();
            assertThat(out.toString(StandardCharsets.UTF_8)).as("a value of " + length + " characters")
                    .isEqualTo(generatorText(new JsonRpcResult(RequestId.of(1), result)));
        }
    }

    @Test
    void partsTheWriterDoesNotTakeAreLeftToTheGenerator() {
        ObjectNode fraction = toolResult(Json.rawJsonOf(Map.of("a", 1)), Json.object().put("score", 0.5));
        ObjectNode unicodeName = toolResult(Json.rawJsonOf(Map.of("a", 1)), Json.object().put("caf\u00e9", true));
        ObjectNode large = toolResult(Json.rawJsonOf(Map.of("a", "x".repeat(9_000))), null);
        ObjectNode deep = toolResult(Json.rawJsonOf(Map.of("a", 1)), null);
        ObjectNode level = deep.putObject("_meta");
        for (int i = 0; i < 40; i++) {
            level = level.putObject("d");
        }
        for (ObjectNode result : List.of(fraction, unicodeName, large, deep)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            assertThat(ResultBytesWriter.write(RequestId.of(1), result, out)).as("written directly").isFalse();
            assertThat(out.size()).as("bytes written by a writer that declined").isZero();
            assertSameBytes(RequestId.of(1), result, "a result left to the generator");
        }
        assertSameBytes(RequestId.of("caf\u00e9 \ud83d\ude00"), toolResult(Json.rawJsonOf(List.of()), null),
                "a non-ASCII string id");
    }

    @Test
    void idsOfEveryKindAreWrittenAsTheGeneratorWritesThem() {
        List<RequestId> ids = List.of(RequestId.of(0), RequestId.of(-1), RequestId.of(9), RequestId.of(10),
                RequestId.of(Long.MAX_VALUE), RequestId.of(Long.MIN_VALUE), RequestId.of(Long.MIN_VALUE + 1),
                RequestId.of(""), RequestId.of("a\"b\\c\n"), RequestId.of("0"));
        for (RequestId id : ids) {
            assertSameBytes(id, toolResult(Json.rawJsonOf(Map.of("a", 1)), null), "id " + id);
        }
    }

    @Test
    void keysThatShareAQuotedKeysSlotAreEachWrittenAsThemselves() {
        // "Aa" and "BB" have the same hash, so they take the same slot of the writer's quoted keys.
        assertThat("Aa".hashCode()).isEqualTo("BB".hashCode());
        for (String key : List.of("Aa", "BB", "Aa", "BB", new String("Aa".toCharArray()), "A\"a", "A\"a")) {
            ObjectNode extra = Json.object();
            extra.put(key, 1);
            assertSameBytes(RequestId.of(1), toolResult(Json.rawJsonOf(Map.of("a", 1)), extra), "key " + key);
        }
    }

    // ---------------------------------------------------------------- helpers

    /** A tool result as the server builds one: the value's text as a text block, the value as structured content. */
    private static ObjectNode toolResult(JsonNode value, ObjectNode extra) {
        ObjectNode result = Json.object();
        result.putArray("content").addObject().put("type", "text").set("text", Json.stringNode(Json.rawText(value), value));
        result.set("structuredContent", value);
        if (extra != null) {
            result.setAll(extra);
        }
        return result;
    }

    private void assertSameBytes(RequestId id, ObjectNode result, String what) {
        JsonRpcResult message = new JsonRpcResult(id, result);
        assertThat(new String(codec.encode(message), StandardCharsets.UTF_8)).as(what).isEqualTo(generatorText(message));
    }

    private String generatorText(JsonRpcMessage message) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        codec.encodeWithGenerator(message, out);
        return out.toString(StandardCharsets.UTF_8);
    }

    private static RequestId randomId(Random random) {
        return switch (random.nextInt(3)) {
            case 0 -> RequestId.of(random.nextLong());
            case 1 -> RequestId.of(random.nextInt(1000));
            default -> RequestId.of(randomString(random, 8));
        };
    }

    private static Object randomValue(Random random, int depth) {
        int kind = depth > 3 ? random.nextInt(4) : random.nextInt(6);
        return switch (kind) {
            case 0 -> randomString(random, 20);
            case 1 -> random.nextInt();
            case 2 -> random.nextBoolean();
            case 3 -> random.nextInt(5) == 0 ? random.nextDouble() : (Object) ("plain " + random.nextInt(100));
            case 4 -> {
                Map<String, Object> map = new LinkedHashMap<>();
                for (int i = random.nextInt(5); i > 0; i--) {
                    map.put(randomString(random, 6), randomValue(random, depth + 1));
                }
                yield map;
            }
            default -> {
                java.util.ArrayList<Object> list = new java.util.ArrayList<>();
                for (int i = random.nextInt(4); i > 0; i--) {
                    list.add(randomValue(random, depth + 1));
                }
                yield list;
            }
        };
    }

    /** Members the writer takes (ASCII names, strings, booleans, nulls, integers) and, now and then, one it leaves. */
    private static ObjectNode randomObject(Random random, int depth) {
        ObjectNode object = Json.object();
        for (int i = random.nextInt(4); i > 0; i--) {
            String name = random.nextInt(10) == 0 ? randomString(random, 5) : randomAscii(random, 6);
            switch (random.nextInt(depth > 2 ? 6 : 8)) {
                case 0 -> object.put(name, randomAscii(random, 10));
                case 1 -> object.put(name, random.nextBoolean());
                case 2 -> object.putNull(name);
                case 3 -> object.put(name, random.nextInt());
                case 4 -> object.put(name, random.nextLong());
                case 5 -> object.put(name, random.nextInt(8) == 0 ? randomString(random, 10) : randomAscii(random, 3));
                case 6 -> object.set(name, randomObject(random, depth + 1));
                default -> {
                    ArrayNode array = object.putArray(name);
                    for (int j = random.nextInt(3); j > 0; j--) {
                        array.add(randomObject(random, depth + 1));
                    }
                    array.add(NODES.stringNode(randomAscii(random, 4)));
                }
            }
        }
        return object;
    }

    private static String randomAscii(Random random, int maxLength) {
        StringBuilder s = new StringBuilder();
        for (int i = random.nextInt(maxLength + 1); i > 0; i--) {
            s.append((char) random.nextInt(128));
        }
        return s.toString();
    }

    /** ASCII, the awkward characters, any BMP character (lone surrogates included) and supplementary ones. */
    private static String randomString(Random random, int maxLength) {
        StringBuilder s = new StringBuilder();
        for (int i = random.nextInt(maxLength + 1); i > 0; i--) {
            switch (random.nextInt(6)) {
                case 0, 1 -> s.append((char) (0x20 + random.nextInt(0x5f)));
                case 2 -> s.append((char) random.nextInt(0x80));
                case 3 -> s.append(AWKWARD.charAt(random.nextInt(AWKWARD.length())));
                case 4 -> s.append((char) random.nextInt(0x10000));
                default -> s.appendCodePoint(0x10000 + random.nextInt(0x100000));
            }
        }
        return s.toString();
    }
}
