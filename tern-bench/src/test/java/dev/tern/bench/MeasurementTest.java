package dev.tern.bench;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class MeasurementTest {
    private static final long MS = 1_000_000;

    @Test
    void theWarmUpsRequestsAreRecordedButLeftOutOfEveryFigure() {
        Measurement m = new Measurement(0, 1_000 * MS, 2, Outcome.failed(Outcome.Status.TIMEOUT, "late"));
        m.record(0, Measurement.WARMUP, Outcome.ok(), 900 * MS);
        m.record(0, Measurement.WARMUP, Outcome.failed(Outcome.Status.HTTP_STATUS, "HTTP 503"), 950 * MS);
        m.record(1_000 * MS, 0, Outcome.ok(), 1_002 * MS);
        m.record(1_100 * MS, 0, Outcome.ok().withTimings(1_100 * MS, 1_101 * MS, null), 1_104 * MS);
        m.record(1_600 * MS, 1, Outcome.failed(Outcome.Status.JSONRPC_ERROR, "-32602 bad id"), 1_608 * MS);

        LoadSpec spec = LoadSpec.steps(List.of(new LoadSpec.RateStep(10, Duration.ofMillis(500)),
                new LoadSpec.RateStep(20, Duration.ofMillis(500)))).withWarmup(Duration.ofSeconds(1));
        RunResult r = m.result("run", "target", "GET", spec, List.of(0.5, 0.5), null, List.of());

        assertThat(m.completedAll()).isEqualTo(5);
        assertThat(m.errorsAll()).isEqualTo(2);
        assertThat(r.requests()).isEqualTo(3);
        assertThat(r.ok()).isEqualTo(2);
        assertThat(r.errors()).containsOnlyKeys("jsonrpc_error").containsEntry("jsonrpc_error", 1L);
        assertThat(r.errorSamples()).containsEntry("jsonrpc_error", "-32602 bad id");
        assertThat(r.latency().count()).isEqualTo(3);
        assertThat(r.latency().maxMs()).isCloseTo(8.0, org.assertj.core.data.Offset.offset(0.01));
        assertThat(r.ttfb().count()).isEqualTo(1);
        assertThat(r.phases()).extracting(PhaseResult::requests).containsExactly(2L, 1L);
        assertThat(r.phases()).extracting(PhaseResult::errors).containsExactly(0L, 1L);
        assertThat(r.seconds()).isCloseTo(0.608, org.assertj.core.data.Offset.offset(0.001));
    }
}
