package dev.tern.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import dev.tern.server.EventStore;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.tern.testing.RedisServer;

class RedisEventStoreTest {
    private static RedisServer server;
    private static Redis nodeA;
    private static Redis nodeB;

    @BeforeAll
    static void start() {
        server = RedisServer.start();
        nodeA = Redis.connect(server.uri());
        nodeB = Redis.connect(server.uri());
    }

    @AfterAll
    static void stop() {
        if (nodeA != null) {
            nodeA.close();
        }
        if (nodeB != null) {
            nodeB.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static byte[] message(int n) {
        return ("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"n\":" + n + "}}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> texts(List<EventStore.Event> events) {
        return events.stream().map(e -> new String(e.message(), StandardCharsets.UTF_8)).toList();
    }

    @Test
    void aClientResumesOnAnotherNodeAndGetsExactlyTheEventsItMissed() {
        EventStore a = new RedisEventStore(nodeA);
        EventStore b = new RedisEventStore(nodeB);
        String stream = a.streamId(1);
        List<String> ids = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            ids.add(a.append("session-resume", stream, message(i)));
        }

        EventStore.Replay replay = b.replayAfter("session-resume", ids.get(1)).orElseThrow();

        assertThat(replay.streamId()).isEqualTo(stream);
        assertThat(replay.events()).extracting(EventStore.Event::id).containsExactlyElementsOf(ids.subList(2, 5));
        assertThat(texts(replay.events())).containsExactly(new String(message(3), StandardCharsets.UTF_8),
                new String(message(4), StandardCharsets.UTF_8), new String(message(5), StandardCharsets.UTF_8));
        assertThat(b.replayAfter("session-resume", ids.get(4)).orElseThrow().events()).isEmpty();
    }

    @Test
    void theIdAStreamIsPrimedWithReplaysEverythingSentAfterIt() {
        EventStore a = new RedisEventStore(nodeA);
        String stream = a.streamId(1);
        String priming = a.primingId("session-priming", stream);
        a.append("session-priming", stream, message(1));
        String second = a.append("session-priming", stream, message(2));

        assertThat(new RedisEventStore(nodeB).replayAfter("session-priming", priming).orElseThrow().events())
                .extracting(EventStore.Event::id).hasSize(2).endsWith(second);
        assertThat(a.primingId("session-priming", stream)).isEqualTo(second);
    }

    @Test
    void eventAndStreamIdsAreUniqueAcrossNodesServingOneSession() {
        EventStore a = new RedisEventStore(nodeA);
        EventStore b = new RedisEventStore(nodeB);
        assertThat(a.streamId(1)).isNotEqualTo(b.streamId(1));
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            ids.add(a.append("session-unique", a.streamId(1), message(i)));
            ids.add(b.append("session-unique", b.streamId(1), message(i)));
        }
        assertThat(ids).hasSize(100);
        assertThat(a.replayAfter("session-unique", b.streamId(1) + "_0-0").orElseThrow().events()).hasSize(50);
    }

    @Test
    void aStreamKeepsAboutItsLastEventsOnly() {
        EventStore a = new RedisEventStore(nodeA, 10, Duration.ofMinutes(5));
        String stream = a.streamId(1);
        String priming = a.primingId("session-bounded", stream);
        String last = null;
        for (int i = 1; i <= 1000; i++) {
            last = a.append("session-bounded", stream, message(i));
        }

        List<EventStore.Event> kept = a.replayAfter("session-bounded", priming).orElseThrow().events();

        // approximate trimming drops whole nodes of the stream (100 entries by default), so a few more than 10 stay
        assertThat(kept).hasSizeBetween(10, 10 + 100);
        assertThat(kept.get(kept.size() - 1).id()).isEqualTo(last);
        assertThat(texts(kept).get(kept.size() - 1)).isEqualTo(new String(message(1000), StandardCharsets.UTF_8));
    }

    @Test
    void aStreamIdleLongerThanTheMaxAgeIsForgotten() throws InterruptedException {
        EventStore a = new RedisEventStore(nodeA, 100, Duration.ofMillis(150));
        String stream = a.streamId(1);
        String first = a.append("session-aged", stream, message(1));
        a.append("session-aged", stream, message(2));
        assertThat(a.replayAfter("session-aged", first)).isPresent();

        Thread.sleep(400);

        assertThat(a.replayAfter("session-aged", first)).isEmpty();
    }

    @Test
    void foreignMalformedAndUnknownIdsReplayNothing() {
        EventStore a = new RedisEventStore(nodeA);
        String stream = a.streamId(1);
        String id = a.append("session-owner", stream, message(1));

        assertThat(a.replayAfter("session-other", id)).isEmpty();
        assertThat(a.replayAfter("session-owner", "no-underscore")).isEmpty();
        assertThat(a.replayAfter("session-owner", stream + "_12")).isEmpty();
        assertThat(a.replayAfter("session-owner", "x}{y_1-0")).isEmpty();
        assertThat(a.replayAfter("session-owner", a.streamId(99) + "_0-0")).isEmpty();
    }

    @Test
    void removingASessionForgetsAllItsStreams() {
        EventStore a = new RedisEventStore(nodeA);
        String one = a.append("session-gone", a.streamId(1), message(1));
        String two = a.append("session-gone", a.streamId(2), message(2));
        a.append("session-kept", a.streamId(1), message(3));

        a.removeSession("session-gone");

        assertThat(a.replayAfter("session-gone", one)).isEmpty();
        assertThat(a.replayAfter("session-gone", two)).isEmpty();
        assertThat(a.replayAfter("session-kept", a.streamId(1) + "_0-0")).isPresent();
        assertThat(nodeA.commands().keys("tern:{session-gone}*")).isEmpty();
    }
}
