package dev.tern.transport.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.tern.protocol.Json;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.server.ToolSpec;

import org.junit.jupiter.api.Test;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A change fanned out to the 2026-07-28 listens of many HTTP/2 streams: each stream hears it once, after what was sent
 * before it, and a connection that stops reading keeps none of the others waiting.
 */
class ListenFanOutTest {
    private static final String SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

    @Test
    void everyListenOnOneHttp2ConnectionHearsAListChangeOnceAndInOrderWithItsOtherEvents() throws Exception {
        int listens = 200;
        int updates = 10;
        // Keep-alive comments, written by the event loop itself, interleave with the events sent from other threads.
        try (Served served = new Served(b -> b.sse(s -> s.keepAlive(Duration.ofMillis(20))));
                RawH2 h2 = RawH2.connect(served.port())) {
            Map<Integer, Integer> listenOfStream = new HashMap<>();
            for (int i = 0; i < listens; i++) {
                ObjectNode params = Json.object();
                ObjectNode wanted = params.putObject("notifications").put("toolsListChanged", true);
                var uris = wanted.putArray("resourceSubscriptions");
                for (int u = 0; u < updates; u++) {
                    uris.add("mem://" + u);
                }
                int stream = h2.post(Mcp.request(i, "subscriptions/listen", Mcp.meta(params)),
                        Map.of("mcp-method", "subscriptions/listen"), true);
                listenOfStream.put(stream, i);
            }
            DirectoryFixture.await("every listen open", () -> served.transport.openListens() == listens);

            for (int u = 0; u < updates; u++) {
                served.fixture.server.notifyResourceUpdated("mem://" + u);
            }
            served.fixture.server.addTool(ToolSpec.builder("added").inputSchema(objectSchema())
                    .handler((ctx, args) -> CallToolResult.text("added")).build());
            Events events = new Events(h2);
            events.readUntil(listenOfStream.size(), "notifications/tools/list_changed");
            // Sent once the change reached every stream, so it must come after it on each, with nothing in between.
            served.fixture.server.notifyResourceUpdated("mem://0");
            events.readUntil(listenOfStream.size(), "mem://0", 2);

            List<String> expected = new ArrayList<>();
            expected.add("notifications/subscriptions/acknowledged");
            for (int u = 0; u < updates; u++) {
                expected.add("notifications/resources/updated mem://" + u);
            }
            expected.add("notifications/tools/list_changed");
            expected.add("notifications/resources/updated mem://0");
            listenOfStream.forEach((stream, listen) -> {
                List<JsonNode> received = events.of(stream);
                assertThat(received).as("stream %d", stream).extracting(ListenFanOutTest::describe)
                        .containsExactlyElementsOf(expected);
                assertThat(received).as("stream %d", stream)
                        .allSatisfy(m -> assertThat(m.path("params").path("_meta").path(SUBSCRIPTION_ID).asInt(-1))
                                .isEqualTo(listen));
            });
        }
    }

    @Test
    void aConnectionThatStopsReadingKeepsNoOtherConnectionsListensWaiting() throws Exception {
        int listens = 20;
        int updates = 100;
        String uri = "mem://" + "x".repeat(1_000);
        try (Served served = new Served(b -> b.connections(c -> c.maxBufferedResponseBytes(64 * 1024)
                .writeTimeout(Duration.ofSeconds(2))));
                RawH2 stalled = RawH2.connect(served.port(), 4_096);
                RawH2 reading = RawH2.connect(served.port())) {
            List<Integer> readingStreams = new ArrayList<>();
            for (int i = 0; i < listens; i++) {
                stalled.post(listen("stalled-" + i, uri), Map.of("mcp-method", "subscriptions/listen"), true);
                readingStreams.add(reading.post(listen("reading-" + i, uri), Map.of("mcp-method",
                        "subscriptions/listen"), true));
            }
            DirectoryFixture.await("every listen open", () -> served.transport.openListens() == 2 * listens);

            // In waves the reading client takes as they come, each well within the bound; the stalled one takes none.
            Events events = new Events(reading);
            for (int wave = 1; wave <= updates / 10; wave++) {
                for (int u = 0; u < 10; u++) {
                    served.fixture.server.notifyResourceUpdated(uri);
                }
                events.readUntil(listens, uri, wave * 10);
            }
            for (int stream : readingStreams) {
                assertThat(events.of(stream)).as("stream %d", stream).extracting(ListenFanOutTest::describe)
                        .hasSize(1 + updates)
                        .last().isEqualTo("notifications/resources/updated " + uri);
            }
            // The stalled connection's listens, whose bytes could not leave, were dropped rather than buffered on.
            DirectoryFixture.await("the stalled listens dropped", () -> served.transport.openListens() == listens);
        }
    }

    private static String listen(String id, String uri) {
        ObjectNode params = Json.object();
        params.putObject("notifications").putArray("resourceSubscriptions").add(uri);
        return Mcp.request(id, "subscriptions/listen", Mcp.meta(params));
    }

    private static ObjectNode objectSchema() {
        ObjectNode schema = Json.object();
        schema.put("type", "object");
        return schema;
    }

    private static String describe(JsonNode message) {
        String method = message.path("method").asString();
        JsonNode uri = message.path("params").path("uri");
        return uri.isMissingNode() ? method : method + " " + uri.asString();
    }

    /** The SSE events of each stream of one connection, as they arrive. */
    private static final class Events {
        private final RawH2 h2;
        private final Map<Integer, StringBuilder> text = new HashMap<>();
        private final Map<Integer, List<JsonNode>> messages = new HashMap<>();

        Events(RawH2 h2) {
            this.h2 = h2;
        }

        List<JsonNode> of(int stream) {
            return messages.getOrDefault(stream, List.of());
        }

        void readUntil(int streams, String marker) throws IOException {
            readUntil(streams, marker, 1);
        }

        /** Reads frames until {@code streams} streams have each had {@code times} events containing {@code marker}. */
        void readUntil(int streams, String marker, int times) throws IOException {
            while (count(marker, times) < streams) {
                RawH2.Frame f = h2.nextAnswered();
                if (f.type() == RawH2.RST_STREAM) {
                    throw new AssertionError("stream " + f.stream() + " reset with error " + f.errorCode());
                }
                if (f.type() != RawH2.DATA) {
                    continue;
                }
                StringBuilder pending = text.computeIfAbsent(f.stream(), s -> new StringBuilder());
                pending.append(new String(f.payload(), StandardCharsets.UTF_8));
                int end;
                while ((end = pending.indexOf("\n\n")) >= 0) {
                    String event = pending.substring(0, end);
                    pending.delete(0, end + 2);
                    for (String line : event.split("\n")) {
                        if (line.startsWith("data: ")) {
                            messages.computeIfAbsent(f.stream(), s -> new ArrayList<>())
                                    .add(Json.mapper().readTree(line.substring(6)));
                        }
                    }
                }
            }
        }

        private long count(String marker, int times) {
            return messages.values().stream()
                    .filter(list -> list.stream().filter(m -> describe(m).contains(marker)).count() >= times)
                    .count();
        }
    }
}
