package dev.tern.observability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.tern.server.observe.Era;
import dev.tern.server.observe.Transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class AccessLogTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void eachRequestIsOneJsonLineWithItsTimeMethodTargetOutcomeDurationPrincipalSessionAndTraceId() {
        List<String> lines = new CopyOnWriteArrayList<>();
        try (Fixture fixture = new Fixture(AccessLog.to(lines::add))) {
            long t0 = System.nanoTime();
            fixture.observer.request(Transport.HTTP_1_1, t0)
                    .parsed(t0 + 1, "tools/call", "get_user")
                    .requestId(42)
                    .principal("alice")
                    .session("s-1")
                    .era(Era.SESSION)
                    .end(t0 + 1_234_567);

            assertThat(lines).hasSize(1);
            JsonNode line = JSON.readTree(lines.get(0));
            String traceId = fixture.spans.getFinishedSpanItems().get(0).getTraceId();
            assertThat(line.get("method").asString()).isEqualTo("tools/call");
            assertThat(line.get("target").asString()).isEqualTo("get_user");
            assertThat(line.get("outcome").asString()).isEqualTo("ok");
            assertThat(line.get("duration_ms").asDouble()).isEqualTo(1.234);
            assertThat(line.get("principal").asString()).isEqualTo("alice");
            assertThat(line.get("session").asString()).isEqualTo("s-1");
            assertThat(line.get("trace_id").asString()).isEqualTo(traceId);
            assertThat(line.get("era").asString()).isEqualTo("session");
            assertThat(line.get("request_id").asString()).isEqualTo("42");
            assertThat(java.time.Instant.parse(line.get("time").asString()))
                    .isBetween(java.time.Instant.now().minusSeconds(5), java.time.Instant.now());
        }
    }

    @Test
    void anErrorsOutcomeIsItsCodeAndAbsentValuesAreLeftOut() {
        List<String> lines = new CopyOnWriteArrayList<>();
        try (Observability logOnly = Observability.builder().accessLog(AccessLog.to(lines::add)).build()) {
            assertThat(logOnly.observer().enabled()).isTrue();
            long t0 = System.nanoTime();
            logOnly.observer().request(Transport.STDIO, t0).parsed(t0 + 1, "nope", null).endError(t0 + 2, -32601,
                    "Method not found");
        }

        JsonNode line = JSON.readTree(lines.get(0));
        assertThat(line.get("outcome").asString()).isEqualTo("-32601");
        assertThat(line.propertyNames()).containsExactly("time", "method", "outcome", "duration_ms");
    }

    @Test
    void valuesFromClientsAreEscapedSoThatEachRequestStaysOneLine() {
        String line = AccessLog.format(new AccessLog.Entry(0, "tools/call", "a\"b\nc", "ok", 0, null, null, null, null,
                null));

        assertThat(line).doesNotContain("\n");
        assertThat(JSON.readTree(line).get("target").asString()).isEqualTo("a\"b\nc");
    }

    @Test
    void aFileLogAppendsOneLinePerRequest(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("access.log");
        try (Observability o = Observability.builder().accessLog(AccessLog.toFile(file)).build()) {
            for (int i = 0; i < 3; i++) {
                long t0 = System.nanoTime();
                o.observer().request(Transport.STDIO, t0).parsed(t0 + 1, "ping", null).end(t0 + 2);
            }
        }

        assertThat(Files.readAllLines(file)).hasSize(3).allSatisfy(l -> assertThat(JSON.readTree(l).get("method")
                .asString()).isEqualTo("ping"));
    }
}
