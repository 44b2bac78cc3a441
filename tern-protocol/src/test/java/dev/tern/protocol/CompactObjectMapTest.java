package dev.tern.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** The compact members of object nodes behave as the LinkedHashMap they replace, inline and past the inline limit. */
class CompactObjectMapTest {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** Random operations on both maps; after each, the two must read the same in every way a caller can look. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void behavesAsALinkedHashMapUnderRandomOperations(long seed) {
        Random random = new Random(seed);
        Map<String, JsonNode> expected = new LinkedHashMap<>();
        CompactObjectMap actual = new CompactObjectMap();
        for (int step = 0; step < 4_000; step++) {
            // few keys keep the map inline most of the time; more make it cross the limit both ways
            String key = "k" + random.nextInt(step % 400 < 200 ? 6 : 14);
            JsonNode value = NODES.numberNode(random.nextInt(1000));
            switch (random.nextInt(11)) {
                case 0, 1, 2, 3 -> assertThat(actual.put(key, value)).isEqualTo(expected.put(key, value));
                case 4 -> assertThat(actual.remove(key)).isEqualTo(expected.remove(key));
                case 5 -> assertThat(actual.putIfAbsent(key, value)).isEqualTo(expected.putIfAbsent(key, value));
                case 6 -> removeEveryOther(actual.entrySet().iterator(), expected.entrySet().iterator());
                case 7 -> setEveryValue(actual, expected, value);
                case 8 -> assertThat(actual.keySet().remove(key)).isEqualTo(expected.keySet().remove(key));
                case 9 -> assertThat(actual.values().remove(value)).isEqualTo(expected.values().remove(value));
                default -> {
                    if (random.nextInt(20) == 0) {
                        actual.clear();
                        expected.clear();
                    }
                }
            }
            assertSame(actual, expected, key);
        }
    }

    private static void removeEveryOther(Iterator<Map.Entry<String, JsonNode>> actual,
            Iterator<Map.Entry<String, JsonNode>> expected) {
        boolean remove = false;
        while (expected.hasNext()) {
            assertThat(actual.hasNext()).isTrue();
            assertThat(actual.next()).isEqualTo(expected.next());
            if (remove) {
                actual.remove();
                expected.remove();
            }
            remove = !remove;
        }
        assertThat(actual.hasNext()).isFalse();
    }

    private static void setEveryValue(Map<String, JsonNode> actual, Map<String, JsonNode> expected, JsonNode value) {
        for (Map.Entry<String, JsonNode> e : actual.entrySet()) {
            e.setValue(value);
        }
        for (Map.Entry<String, JsonNode> e : expected.entrySet()) {
            e.setValue(value);
        }
    }

    private static void assertSame(CompactObjectMap actual, Map<String, JsonNode> expected, String probe) {
        assertThat(actual.size()).isEqualTo(expected.size());
        assertThat(actual.isEmpty()).isEqualTo(expected.isEmpty());
        assertThat(actual.get(probe)).isEqualTo(expected.get(probe));
        assertThat(actual.containsKey(probe)).isEqualTo(expected.containsKey(probe));
        assertThat(new ArrayList<>(actual.entrySet())).containsExactlyElementsOf(new ArrayList<>(expected.entrySet()));
        assertThat(new ArrayList<>(actual.keySet())).containsExactlyElementsOf(expected.keySet());
        List<String> visited = new ArrayList<>();
        actual.forEach((k, v) -> visited.add(k + "=" + v));
        assertThat(visited).containsExactlyElementsOf(expected.entrySet().stream().map(Object::toString).toList());
        assertThat(actual).isEqualTo(expected);
        assertThat(expected).isEqualTo(actual);
        assertThat(actual.hashCode()).isEqualTo(expected.hashCode());
        assertThat(actual.toString()).isEqualTo(expected.toString());
    }

    @Test
    void anObjectPastTheInlineLimitKeepsItsOrderAndIsHashed() {
        CompactObjectMap map = new CompactObjectMap();
        for (int i = 0; i < CompactObjectMap.MAX_INLINE + 5; i++) {
            map.put("m" + i, NODES.numberNode(i));
        }
        assertThat(map.keySet()).containsExactly("m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9", "m10",
                "m11", "m12");
        assertThat(map.entrySet().getClass()).isEqualTo(new LinkedHashMap<String, JsonNode>().entrySet().getClass());
        assertThat(map.get("m12").intValue()).isEqualTo(12);
    }

    @Test
    void lookupsMatchEqualKeysThatAreNotTheSameString() {
        CompactObjectMap map = new CompactObjectMap();
        map.put(new String("method"), NODES.stringNode("tools/call"));
        assertThat(map.get("method").stringValue()).isEqualTo("tools/call");
        assertThat(map.get(new StringBuilder("method").toString())).isNotNull();
        assertThat(map.get("Method")).isNull();
        assertThat(map.get(null)).isNull();
        assertThat(map.get(42)).isNull();
    }

    @Test
    void anIteratorFailsFastWhenTheMapChangesShapeUnderIt() {
        CompactObjectMap map = new CompactObjectMap();
        map.put("a", NODES.numberNode(1));
        map.put("b", NODES.numberNode(2));
        Iterator<Map.Entry<String, JsonNode>> it = map.entrySet().iterator();
        it.next();
        map.put("c", NODES.numberNode(3));
        assertThatThrownBy(it::next).isInstanceOf(ConcurrentModificationException.class);
        assertThatThrownBy(() -> map.forEach((k, v) -> map.remove("a")))
                .isInstanceOf(ConcurrentModificationException.class);
    }

    @Test
    void nodesOfTernsMapperUseItAndEqualNodesOfJacksonsOwnFactory() {
        String json = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"get_user\","
                + "\"arguments\":{\"id\":\"42\"},\"_meta\":{\"a\":{},\"b\":[1,{\"c\":null}]}}}";
        JsonNode compact = Json.mapper().readTree(json);
        JsonNode plain = new tools.jackson.databind.ObjectMapper().readTree(json);
        assertThat(compact).isEqualTo(plain);
        assertThat(plain).isEqualTo(compact);
        assertThat(compact.hashCode()).isEqualTo(plain.hashCode());
        assertThat(Json.mapper().writeValueAsString(compact)).isEqualTo(json);
        ObjectNode built = Json.object();
        built.put("z", 1).put("a", 2).putObject("nested").put("x", true);
        built.remove("z");
        assertThat(Json.mapper().writeValueAsString(built)).isEqualTo("{\"a\":2,\"nested\":{\"x\":true}}");
        assertThat(built.deepCopy()).isEqualTo(built);
    }

    @Test
    void aLargeParsedObjectKeepsEveryMemberInOrder() {
        StringBuilder json = new StringBuilder("{");
        for (int i = 0; i < 1_000; i++) {
            json.append(i == 0 ? "" : ",").append("\"p").append(i).append("\":").append(i);
        }
        JsonNode node = Json.mapper().readTree(json.append('}').toString());
        assertThat(node.size()).isEqualTo(1_000);
        assertThat(node.get("p999").intValue()).isEqualTo(999);
        assertThat(node.propertyNames().iterator().next()).isEqualTo("p0");
    }
}
