package dev.tern.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import dev.tern.bench.targets.Era;
import dev.tern.bench.targets.StdioMcpTarget;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Tern's quick-start server spawned over stdio: a cold start, then pipelined calls in both eras. */
class StdioTargetTest {
    private static List<String> quickStart() {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return List.of(java, "-cp", System.getProperty("java.class.path"), "dev.tern.examples.QuickStart");
    }

    private static final Operation FORECAST = Operation.callTool("forecast", "{\"city\":\"Oslo\"}");

    @Test
    void coldStartThenPipelinedCalls() throws Exception {
        StdioMcpTarget target = StdioMcpTarget.of(quickStart(), Era.AUTO, Duration.ofSeconds(10));
        try (LoadRunner runner = LoadRunner.of(target, Workload.of(FORECAST))) {
            long spawned = System.nanoTime();
            ColdStart cold = runner.coldStart("QuickStart", spawned, FORECAST, Duration.ofSeconds(30));
            RunResult r = runner.run("warm", LoadSpec.closedLoop(8, Duration.ofSeconds(2)).withMaxRequests(2000));

            assertThat(cold.startToFirstCallMs()).isPositive();
            assertThat(cold.startToFirstCallMs()).isGreaterThanOrEqualTo(cold.firstCallMs());
            assertThat(cold.attempts()).isEqualTo(1);
            assertThat(target.describe()).startsWith("MCP 2026-07-28 stdio: ");
            assertThat(r.errors()).as("%s", r.errorSamples()).isEmpty();
            assertThat(r.ok()).isPositive();
            // The spawned server is sampled without being told its pid.
            assertThat(r.process()).isNotNull();
            assertThat(r.process().pid()).isEqualTo(target.pid());
            assertThat(r.process().cpuPerCallMicros()).isPositive();
        }
    }

    @Test
    void legacySessionOverStdioAndErrorsAreClassified() throws Exception {
        StdioMcpTarget target = StdioMcpTarget.of(quickStart(), Era.LEGACY, Duration.ofSeconds(10));
        Operation unknown = Operation.callTool("no_such_tool", "{}");
        Workload mix = Workload.mix(new java.util.LinkedHashMap<>(java.util.Map.of(FORECAST, 1, unknown, 1)));
        try (LoadRunner runner = LoadRunner.of(target, mix)) {
            RunResult r = runner.run("legacy", LoadSpec.closedLoop(2, Duration.ofSeconds(30)).withMaxRequests(100));

            assertThat(target.describe()).startsWith("MCP 2025-11-25 stdio: ");
            assertThat(r.requests()).isEqualTo(100);
            assertThat(r.ok()).isEqualTo(50);
            assertThat(r.errorCount()).isEqualTo(50);
            assertThat(r.errors().keySet()).containsAnyOf("jsonrpc_error", "tool_error");
        }
    }
}
