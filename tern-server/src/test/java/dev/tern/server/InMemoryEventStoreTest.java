package dev.tern.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class InMemoryEventStoreTest {
    private static byte[] m(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void replaysExactlyTheMissedEventsOfThatStreamOfThatSession() {
        InMemoryEventStore store = new InMemoryEventStore();
        String priming = store.primingId("s1", "a");
        String first = store.append("s1", "a", m("1"));
        store.append("s1", "a", m("2"));
        store.append("s1", "b", m("other stream"));
        store.append("s2", "x", m("other session"));

        assertThat(store.replayAfter("s1", first).orElseThrow().events()).extracting(e -> new String(e.message()))
                .containsExactly("2");
        assertThat(store.replayAfter("s1", priming).orElseThrow().events()).hasSize(2);
        assertThat(store.replayAfter("s2", first)).as("another session's stream").isEmpty();
        assertThat(store.replayAfter("s3", first)).isEmpty();
        assertThat(store.replayAfter("s1", "garbage")).isEmpty();
        assertThat(store.replayAfter("s1", "a_99")).isEmpty();
        assertThat(store.replayAfter("s1", "zz_0")).isEmpty();
        store.removeSession("s1");
        assertThat(store.replayAfter("s1", first)).isEmpty();
    }

    @Test
    void streamsAndSessionsAreBounded() {
        InMemoryEventStore store = new InMemoryEventStore(3, 1_000_000, 2);
        String start = store.primingId("s", "a");
        for (int i = 0; i < 10; i++) {
            store.append("s", "a", m(Integer.toString(i)));
        }
        assertThat(store.replayAfter("s", start).orElseThrow().events()).extracting(e -> new String(e.message()))
                .containsExactly("7", "8", "9");
        store.append("s", "b", m("b"));
        store.append("s", "c", m("c"));
        assertThat(store.replayAfter("s", start)).as("least recently used stream dropped").isEmpty();
    }

    @Test
    void itsSizeIsTheEventsItStillHolds() {
        InMemoryEventStore store = new InMemoryEventStore(3, 1_000_000, 2);
        assertThat(store.size()).isZero();
        for (int i = 0; i < 5; i++) {
            store.append("s1", "a", m(Integer.toString(i)));
        }
        store.append("s1", "b", m("b"));
        store.append("s2", "x", m("x"));
        assertThat(store.size()).as("three kept of a's five, one of b, one of x").isEqualTo(5);
        store.append("s1", "c", m("c"));
        assertThat(store.size()).as("stream a, the eldest of s1's three, was dropped").isEqualTo(3);
        store.removeSession("s1");
        assertThat(store.size()).isEqualTo(1);
    }
}
