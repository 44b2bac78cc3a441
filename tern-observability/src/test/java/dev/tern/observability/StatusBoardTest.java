package dev.tern.observability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.tern.protocol.Json;
import dev.tern.server.observe.McpObserver;
import dev.tern.server.observe.RequestObservation;
import dev.tern.server.observe.Transport;
import dev.tern.server.observe.TransportStats;

import org.junit.jupiter.api.Test;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

class StatusBoardTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long START = 1_000 * SECOND;

    private final Map<String, Long> gauges = new LinkedHashMap<>();
    private final StatusBoard board = new StatusBoard(new EpochClock(), () -> gauges, START);

    private static long at(double seconds) {
        return START + (long) (seconds * SECOND);
    }

    private static JsonNode operation(ObjectNode status, String method, String target) {
        for (JsonNode op : status.path("operations")) {
            if (op.path("method").stringValue().equals(method)
                    && (target == null ? op.path("target").isNull() : target.equals(op.path("target").stringValue()))) {
                return op;
            }
        }
        throw new AssertionError("no " + method + " " + target + " in " + status);
    }

    @Test
    void ratesAreAveragedOverTheLastTenWholeSecondsAndTheSecondUnderWayIsLeftOut() {
        for (int second = 20; second < 30; second++) {
            for (int i = 0; i < 4; i++) {
                board.record("tools/call", "get_user", at(second + 0.1 * i), 1_000_000, i == 0 ? "-32603" : null, "x");
            }
        }
        board.record("tools/call", "get_user", at(30.2), 1_000_000, null, null);

        ObjectNode status = board.render(at(30.5));

        assertThat(status.path("uptime_seconds").asDouble()).isEqualTo(30.5);
        assertThat(status.path("requests_per_second").asDouble()).isEqualTo(4.0);
        assertThat(status.path("errors_per_second").asDouble()).isEqualTo(1.0);
        assertThat(status.path("error_ratio").asDouble()).isEqualTo(0.25);
        JsonNode requests = status.path("series").path("requests");
        assertThat(requests.size()).isEqualTo(60);
        // oldest first, ending with second 29, the last whole one
        assertThat(requests.get(59).asLong()).isEqualTo(4);
        assertThat(requests.get(50).asLong()).isEqualTo(4);
        assertThat(requests.get(49).asLong()).isZero();
        assertThat(status.path("series").path("errors").get(59).asLong()).isEqualTo(1);
    }

    @Test
    void aServerYoungerThanTheRateWindowIsAveragedOverTheSecondsItHasRun() {
        board.record("ping", null, at(0.5), 1_000, null, null);
        board.record("ping", null, at(1.5), 1_000, null, null);

        ObjectNode status = board.render(at(2.1));

        assertThat(status.path("rate_seconds").asLong()).isEqualTo(2);
        assertThat(status.path("requests_per_second").asDouble()).isEqualTo(1.0);
        assertThat(status.path("error_ratio").asDouble()).isZero();
        assertThat(board.render(at(100)).path("error_ratio").isNull()).isTrue();
    }

    @Test
    void latencyPercentilesPerToolCoverTheLastMinuteWhileTotalsCoverTheWholeRun() {
        for (int ms = 1; ms <= 100; ms++) {
            board.record("tools/call", "search_users", at(100 + ms * 0.01), ms * 1_000_000L, null, null);
        }
        board.record("tools/call", "search_users", at(10), 5_000 * 1_000_000L, "-32603", "boom");
        board.record("prompts/get", "greeting", at(101), 2_000_000, "tool_error", null);

        ObjectNode status = board.render(at(105));

        JsonNode search = operation(status, "tools/call", "search_users");
        assertThat(search.path("count").asLong()).isEqualTo(101);
        assertThat(search.path("errors").asLong()).isEqualTo(1);
        assertThat(search.path("window_count").asLong()).isEqualTo(100);
        assertThat(search.path("window_errors").asLong()).isZero();
        assertThat(search.path("p50_ms").asDouble()).isBetween(50 * 0.875, 50 * 1.125);
        assertThat(search.path("p90_ms").asDouble()).isBetween(90 * 0.875, 90 * 1.125);
        assertThat(search.path("p99_ms").asDouble()).isBetween(99 * 0.875, 99 * 1.125);
        assertThat(search.path("max_ms").asDouble()).isBetween(100 * 0.875, 100 * 1.125);
        JsonNode greeting = operation(status, "prompts/get", "greeting");
        assertThat(greeting.path("errors").asLong()).isEqualTo(1);

        JsonNode later = operation(board.render(at(200)), "tools/call", "search_users");
        assertThat(later.path("count").asLong()).isEqualTo(101);
        assertThat(later.path("window_count").asLong()).isZero();
        assertThat(later.path("p50_ms").isNull()).isTrue();
    }

    @Test
    void aSlotIsStartedAfreshWhenItsTimeComesRoundAgain() {
        board.record("ping", null, at(5), 1_000, null, null);
        board.record("ping", null, at(65), 1_000, null, null);

        ObjectNode status = board.render(at(66));

        assertThat(operation(status, "ping", null).path("window_count").asLong()).isEqualTo(1);
        assertThat(status.path("series").path("requests").get(59).asLong()).isEqualTo(1);
        long total = 0;
        for (JsonNode n : status.path("series").path("requests")) {
            total += n.asLong();
        }
        assertThat(total).isEqualTo(1);
    }

    @Test
    void theLatestErrorsAreKeptNewestFirstWithLongMessagesCut() {
        for (int i = 0; i < StatusBoard.RECENT_ERRORS + 5; i++) {
            board.record("tools/call", "t" + i, at(i), 1_000, "-32602", "x".repeat(i == StatusBoard.RECENT_ERRORS + 4 ? 1_000 : 3));
        }

        JsonNode errors = board.render(at(40)).path("recent_errors");

        assertThat(errors.size()).isEqualTo(StatusBoard.RECENT_ERRORS);
        assertThat(errors.get(0).path("target").stringValue()).isEqualTo("t" + (StatusBoard.RECENT_ERRORS + 4));
        assertThat(errors.get(0).path("message").stringValue()).hasSize(StatusBoard.MESSAGE_LIMIT + 1).endsWith("…");
        assertThat(errors.get(0).path("error").stringValue()).isEqualTo("-32602");
        assertThat(errors.get(0).path("time").stringValue()).endsWith("Z");
        assertThat(errors.get(StatusBoard.RECENT_ERRORS - 1).path("target").stringValue()).isEqualTo("t5");
    }

    @Test
    void targetsBeyondTheLimitAreCountedTogether() {
        for (int i = 0; i < StatusBoard.MAX_OPERATIONS + 50; i++) {
            board.record("tools/call", "tool" + i, at(1), 1_000, null, null);
        }

        ObjectNode status = board.render(at(2));

        assertThat(status.path("operations").size()).isEqualTo(StatusBoard.MAX_OPERATIONS + 1);
        assertThat(operation(status, Operations.OTHER, null).path("count").asLong()).isEqualTo(50);
    }

    @Test
    void theTransportsCountsAreTheGaugesOfTheFeed() {
        try (Observability observability = Observability.builder().status(true).build()) {
            McpObserver observer = observability.observer();
            assertThat(observer.enabled()).isTrue();
            assertThat(observability.metricsOn()).isFalse();
            observer.register(new TransportStats() {
                @Override
                public long sessions() {
                    return 3;
                }

                @Override
                public long sseStreams() {
                    return 2;
                }
            });
            observer.register(new TransportStats() {
                @Override
                public long sessions() {
                    return 4;
                }
            });
            long t0 = System.nanoTime();
            RequestObservation o = observer.request(Transport.HTTP_2, t0).parsed(t0 + 10, "tools/call", "get_user");
            o.end(t0 + 2_000_000);

            JsonNode status = Json.mapper().readTree(observability.status().json());

            assertThat(status.path("gauges").path("sessions").asLong()).isEqualTo(7);
            assertThat(status.path("gauges").path("sse_streams").asLong()).isEqualTo(2);
            assertThat(status.path("gauges").has("listens")).isFalse();
            assertThat(status.path("operations").get(0).path("target").stringValue()).isEqualTo("get_user");
            assertThat(status.path("operations").get(0).path("count").asLong()).isEqualTo(1);
        }
    }

    @Test
    void withoutTheStatusBoardThereIsNoFeed() {
        try (Observability observability = Observability.builder().metrics(true).build()) {
            assertThat(observability.statusOn()).isFalse();
            assertThatThrownBy(observability::status).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void thePolicyAllowsExactlyThePagesOwnScriptAndStyleByHash() throws Exception {
        String page = new String(StatusBoard.page(), StandardCharsets.UTF_8);
        String csp = StatusBoard.CONTENT_SECURITY_POLICY;

        assertThat(csp).startsWith("default-src 'none';").contains("script-src '" + hash(between(page, "<script>",
                "</script>")) + "'").contains("style-src '" + hash(between(page, "<style>", "</style>")) + "'");
        assertThat(page).doesNotContain("{{").containsOnlyOnce("<script>").containsOnlyOnce("<style>")
                .doesNotContain("innerHTML").doesNotContain("style=");
    }

    private static String between(String text, String open, String close) {
        Matcher m = Pattern.compile(Pattern.quote(open) + "(.*?)" + Pattern.quote(close), Pattern.DOTALL).matcher(text);
        assertThat(m.find()).isTrue();
        return m.group(1);
    }

    private static String hash(String text) throws Exception {
        return "sha256-" + Base64.getEncoder().encodeToString(
                MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    }
}
