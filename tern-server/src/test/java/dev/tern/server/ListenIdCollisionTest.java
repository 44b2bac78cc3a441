package dev.tern.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;
import dev.tern.protocol.RequestId;

import tools.jackson.databind.node.ObjectNode;

/** Exposes: a request refused because its id names an open listen stays counted as in flight forever. */
class ListenIdCollisionTest {
    @Test
    void aRefusedRequestIsNotLeftInFlight() throws Exception {
        try (McpServer server = McpServer.builder().build(); Peer p = new Peer(server)) {
            ObjectNode filter = Json.object();
            filter.putObject("notifications").put("toolsListChanged", true);
            p.send(RequestId.of("l"), "subscriptions/listen", p.modern(filter));
            p.awaitNotification("notifications/subscriptions/acknowledged");
            p.response(p.send(RequestId.of("l"), "tools/list", p.modern(null)));
            assertThat(p.channel().inFlight()).isZero();
            assertThat(p.channel().awaitIdle(Duration.ofSeconds(5))).isTrue();
        }
    }
}
