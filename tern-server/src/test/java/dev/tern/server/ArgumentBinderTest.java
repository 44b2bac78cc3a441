package dev.tern.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;

import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/** Plain arguments are bound as data binding binds them, whichever way the binder takes. */
class ArgumentBinderTest {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final List<JsonNode> VALUES = List.of(NODES.stringNode("7"), NODES.stringNode("x"),
            NODES.stringNode(""), NODES.numberNode(7), NODES.numberNode(-3L), NODES.numberNode(1L << 40),
            NODES.numberNode(BigInteger.TEN), NODES.numberNode(7.0), NODES.numberNode(7.5), NODES.booleanNode(true),
            NODES.booleanNode(false), NODES.stringNode("true"));
    private static final List<Class<?>> TYPES = List.of(String.class, int.class, Integer.class, long.class, Long.class,
            boolean.class, Boolean.class);

    @Test
    void bindsEveryPlainValueAsDataBindingDoes() {
        for (Class<?> type : TYPES) {
            JavaType javaType = Json.mapper().constructType(type);
            for (JsonNode value : VALUES) {
                Object expected;
                try {
                    expected = Json.mapper().treeToValue(value, javaType);
                } catch (RuntimeException refused) {
                    assertThatThrownBy(() -> ArgumentBinder.bind(Json.mapper(), value, javaType)).as("%s as %s", value, type)
                            .isInstanceOf(ToolException.class);
                    continue;
                }
                Object bound = ArgumentBinder.bind(Json.mapper(), value, javaType);
                assertThat(bound).as("%s as %s", value, type).isEqualTo(expected);
            }
        }
    }
}
