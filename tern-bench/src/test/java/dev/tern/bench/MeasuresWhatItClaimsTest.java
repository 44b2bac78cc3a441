package dev.tern.bench;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import dev.tern.bench.targets.Era;
import dev.tern.bench.targets.HttpMcpTarget;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** Against a server with a known service time and a stall of known length, the figures are what they must be. */
class MeasuresWhatItClaimsTest {
    private static final Operation GET_USER = Operation.callTool("get_user", "{\"id\":\"42\"}");

    private static HttpMcpTarget target(FakeServer server) {
        return HttpMcpTarget.builder(server.uri()).era(Era.MODERN).timeout(Duration.ofSeconds(5)).build();
    }

    @Test
    void percentilesMatchAKnownServiceTime() throws Exception {
        Workload halfSlow = Workload.mix(new java.util.LinkedHashMap<>(java.util.Map.of(
                GET_USER, 1, Operation.callTool("get_user", "{\"id\":\"slow\"}"), 1)));
        try (FakeServer server = new FakeServer(Duration.ofMillis(10), Duration.ofMillis(50));
                LoadRunner runner = LoadRunner.of(target(server), halfSlow)) {
            RunResult r = runner.run("known", LoadSpec.openLoop(40, Duration.ofSeconds(2))
                    .withWarmup(Duration.ofSeconds(1)));

            assertThat(r.errorCount()).isZero();
            assertThat(r.requests()).isEqualTo(80);
            assertThat(r.ok()).isEqualTo(80);
            // Half the requests take 10 ms, half 50 ms: never faster than that, and the quartiles fall on each side
            // of the gap (a tolerance of 30 ms for a loaded machine keeps them apart).
            Histogram curve = curve(r);
            assertThat(r.percentiles().get(0).latencyMs()).isGreaterThanOrEqualTo(10.0);
            assertThat(at(curve, 25)).isBetween(10.0, 40.0);
            assertThat(at(curve, 75)).isBetween(50.0, 80.0);
            assertThat(r.latency().maxMs()).isGreaterThanOrEqualTo(50.0);
            assertThat(r.throughput()).isCloseTo(40, within(8.0));
            // The server's own split comes through from its Server-Timing header.
            assertThat(r.serverSplit()).isNotNull();
            assertThat(r.serverSplit().count()).isEqualTo(80);
            assertThat(r.serverSplit().exec().p50Ms()).isCloseTo(10.0, within(0.1));
            assertThat(r.serverSplit().exec().maxMs()).isCloseTo(50.0, within(0.1));
            assertThat(r.serverSplit().parse().p50Ms()).isCloseTo(0.010, within(0.001));
            assertThat(r.ttfb()).isNotNull();
            assertThat(r.ttfb().p50Ms()).isGreaterThanOrEqualTo(10.0);
        }
    }

    /** The percentile curve, as a step function: the latency at or below which {@code percentile} of requests fell. */
    private record Histogram(java.util.List<PercentilePoint> points) {
    }

    private static Histogram curve(RunResult r) {
        return new Histogram(r.percentiles());
    }

    private static double at(Histogram curve, double percentile) {
        for (PercentilePoint p : curve.points()) {
            if (p.percentile() >= percentile) {
                return p.latencyMs();
            }
        }
        return curve.points().get(curve.points().size() - 1).latencyMs();
    }

    @Test
    void openLoopShowsAStallThatClosedLoopHides() throws Exception {
        RunResult open;
        RunResult closed;
        ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor();
        try (FakeServer server = new FakeServer(Duration.ofMillis(1))) {
            try (LoadRunner runner = LoadRunner.of(target(server), Workload.of(GET_USER))) {
                runner.open();
                clock.schedule(() -> server.stallFor(Duration.ofSeconds(1)), 1, TimeUnit.SECONDS);
                open = runner.run("open", LoadSpec.openLoop(100, Duration.ofSeconds(3)));
            }
            try (LoadRunner runner = LoadRunner.of(target(server), Workload.of(GET_USER))) {
                runner.open();
                clock.schedule(() -> server.stallFor(Duration.ofSeconds(1)), 1, TimeUnit.SECONDS);
                closed = runner.run("closed", LoadSpec.closedLoop(1, Duration.ofSeconds(3)));
            }
        } finally {
            clock.shutdownNow();
        }
        // Open loop: about a second's worth of requests (a third of them) waited for the stall's end, up to 1 s.
        assertThat(open.errorCount()).isZero();
        assertThat(open.requests()).isEqualTo(300);
        assertThat(open.latency().maxMs()).isBetween(950.0, 1600.0);
        assertThat(open.latency().p90Ms()).isGreaterThan(150.0);
        assertThat(open.latency().p99Ms()).isGreaterThan(850.0);
        // Closed loop: the one waiting request is the only slow one; the tail hides the stall.
        assertThat(closed.errorCount()).isZero();
        assertThat(closed.latency().maxMs()).isBetween(950.0, 1600.0);
        assertThat(closed.latency().p90Ms()).isLessThan(100.0);
        assertThat(closed.latency().p99Ms()).isLessThan(open.latency().p99Ms() / 5);
        // The open loop's per-second series shows the stall too.
        assertThat(open.series()).anySatisfy(p -> assertThat(p.maxMs()).isGreaterThan(500.0));
    }

    @Test
    void requestsPastTheInFlightBoundAreCountedAsOverflowNotDropped() throws Exception {
        try (FakeServer server = new FakeServer(Duration.ofMillis(1));
                LoadRunner runner = LoadRunner.of(target(server), Workload.of(GET_USER))) {
            runner.open();
            server.stallFor(Duration.ofMillis(700));
            RunResult r = runner.run("bounded", LoadSpec.openLoop(100, Duration.ofSeconds(1)).withMaxInFlight(5));

            assertThat(r.requests()).isEqualTo(100);
            assertThat(r.ok() + r.errorCount()).isEqualTo(100);
            assertThat(r.errors()).containsKey("overflow");
            assertThat(r.errors().get("overflow")).isGreaterThan(50);
            assertThat(r.errorSamples().get("overflow")).contains("in flight");
        }
    }

    @Test
    void boundedByCountAndTimeAndErrorsAreSortedByKind() throws Exception {
        Workload mix = Workload.mix(new java.util.LinkedHashMap<>(java.util.Map.of(
                GET_USER, 3, Operation.callTool("get_user", "{\"id\":\"missing\"}"), 1)));
        try (FakeServer server = new FakeServer(Duration.ZERO);
                LoadRunner runner = LoadRunner.of(target(server), mix)) {
            RunResult r = runner.run("count", LoadSpec.closedLoop(4, Duration.ofSeconds(30)).withMaxRequests(200));

            assertThat(r.requests()).isEqualTo(200);
            assertThat(r.errors()).containsOnlyKeys("tool_error");
            assertThat(r.errors().get("tool_error")).isEqualTo(50);
            assertThat(r.ok()).isEqualTo(150);
            assertThat(r.errorSamples().get("tool_error")).contains("no such user");
            assertThat(r.seconds()).isLessThan(30);
        }
    }

    @Test
    void sseRepliesAreReadToTheirResponseEvent() throws Exception {
        Workload sse = Workload.mix(new java.util.LinkedHashMap<>(java.util.Map.of(
                Operation.callTool("get_user", "{\"id\":\"sse\"}"), 1,
                Operation.callTool("get_user", "{\"id\":\"sse\",\"isError\":true}"), 1)));
        try (FakeServer server = new FakeServer(Duration.ZERO);
                LoadRunner runner = LoadRunner.of(target(server), sse)) {
            RunResult r = runner.run("sse", LoadSpec.closedLoop(2, Duration.ofSeconds(30)).withMaxRequests(40));

            assertThat(r.ok()).isEqualTo(20);
            assertThat(r.errors()).containsExactly(java.util.Map.entry("tool_error", 20L));
        }
    }

    @Test
    void burstStepsAreMeasuredSeparately() throws Exception {
        try (FakeServer server = new FakeServer(Duration.ofMillis(1));
                LoadRunner runner = LoadRunner.of(target(server), Workload.of(GET_USER))) {
            RunResult r = runner.run("burst", LoadSpec.burst(20, 100, Duration.ofSeconds(1)));

            assertThat(r.phases()).hasSize(3);
            assertThat(r.phases()).extracting(PhaseResult::requests).containsExactly(20L, 100L, 20L);
            assertThat(r.phases()).extracting(PhaseResult::rate).containsExactly(20.0, 100.0, 20.0);
            assertThat(r.requests()).isEqualTo(140);
            assertThat(r.series()).hasSizeGreaterThanOrEqualTo(2);
        }
    }

    @Test
    void samplesTheServingProcess() throws Exception {
        try (FakeServer server = new FakeServer(Duration.ZERO);
                LoadRunner runner = LoadRunner.of(target(server), Workload.of(GET_USER))
                        .sampling(ProcessHandle.current().pid())) {
            RunResult r = runner.run("sampled", LoadSpec.closedLoop(2, Duration.ofSeconds(1)).withMaxRequests(300));

            assertThat(r.process()).isNotNull();
            assertThat(r.process().pid()).isEqualTo(ProcessHandle.current().pid());
            assertThat(r.process().cpuSeconds()).isPositive();
            assertThat(r.process().cpuPerCallMicros()).isPositive();
            assertThat(r.process().rssMaxBytes()).isGreaterThan(1 << 20);
        }
    }
}
