package dev.tern.bench;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;

import dev.tern.bench.targets.HttpVersion;
import dev.tern.bench.targets.RestTarget;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Requests a server never answers end as timeouts after the run's request timeout, whatever the target's own is. */
class RequestTimeoutTest {
    private static final Duration RUN_TIMEOUT = Duration.ofMillis(300);
    /** Far longer than the test may take: only the run's own timeout can end its requests. */
    private static final Duration TARGET_TIMEOUT = Duration.ofMinutes(5);

    @Test
    void anOpenLoopsUnansweredRequestsTimeOutAfterTheRunsTimeout() throws Exception {
        RunResult r = runAgainstASilentServer(LoadSpec.openLoop(20, Duration.ofSeconds(1))
                .withWarmup(Duration.ofMillis(200)).withRequestTimeout(RUN_TIMEOUT));

        assertThat(r.requests()).isEqualTo(20);
        assertThat(r.ok()).isZero();
        assertThat(r.errors()).containsOnlyKeys("timeout").containsEntry("timeout", 20L);
        assertThat(r.errorSamples()).containsEntry("timeout", "no reply within " + RUN_TIMEOUT);
        assertThat(r.latency()).isNull();
    }

    @Test
    void aClosedLoopsUnansweredRequestsTimeOutAndItsConnectionsSendAgain() throws Exception {
        RunResult r = runAgainstASilentServer(LoadSpec.closedLoop(2, Duration.ofSeconds(2))
                .withRequestTimeout(RUN_TIMEOUT));

        // Each of the two chains sends, waits out the timeout and sends again: up to seven times in two seconds.
        assertThat(r.requests()).isBetween(3L, 14L);
        assertThat(r.ok()).isZero();
        assertThat(r.errors()).containsOnlyKeys("timeout").containsEntry("timeout", r.requests());
    }

    private static RunResult runAgainstASilentServer(LoadSpec spec) throws Exception {
        // Connections complete in the listen backlog and are never accepted, so no request is ever answered.
        try (ServerSocket silent = new ServerSocket(0, 100, InetAddress.getLoopbackAddress());
                LoadRunner runner = LoadRunner.of(RestTarget.of(URI.create("http://127.0.0.1:" + silent.getLocalPort()
                        + "/users/42"), HttpVersion.HTTP_1_1, false, TARGET_TIMEOUT, 32), Workload.of(Operation.rest(""))))
        {
            long start = System.nanoTime();
            RunResult r = runner.run("silent", spec);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
            return r;
        }
    }
}
