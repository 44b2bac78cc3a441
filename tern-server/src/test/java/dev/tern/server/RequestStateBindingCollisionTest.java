package dev.tern.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;

import tools.jackson.databind.node.ObjectNode;

/** Exposes: top-level param names are not escaped in the binding's canonical form, so two requests collide. */
class RequestStateBindingCollisionTest {
    @Test
    void topLevelNamesCannotForgeAnotherRequestsBinding() {
        ObjectNode a = (ObjectNode) Json.mapper().readTree("{\"arguments\":{},\"name\":\"t\"}");
        ObjectNode b = (ObjectNode) Json.mapper().readTree("{\"arguments\":{},\"name\":\"t\"}");
        b.removeAll();
        b.put("arguments={}\nname", "t");
        assertThat(RequestStateSealer.binding("tools/call", a)).isNotEqualTo(RequestStateSealer.binding("tools/call", b));
    }
}
