package dev.tern.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The official MCP conformance suite against {@code tern serve --example conformance} over Streamable HTTP: release
 * 0.1.16 (every active and pending server scenario) and 0.2.0-alpha.12 with the 2025-11-25 and 2026-07-28 requirement
 * sets. Each run must pass in full: its exit code, which counts only the scenarios a requirement set scores, and its
 * summary, which also lists the pending and extension scenarios it ran; where a run must include certain scenarios,
 * the summary must show them passed.
 */
class ConformanceSuiteTest {
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(8);
    /** The tasks extension's scenarios, which 0.2.0-alpha.12 runs with the 2026-07-28 requirements. */
    private static final List<String> TASKS_EXTENSION = List.of("tasks-lifecycle", "tasks-capability-negotiation",
            "tasks-wire-fields", "tasks-request-state-removal", "tasks-mrtr-input", "tasks-request-headers",
            "tasks-dispatch-and-envelope", "tasks-status-notifications", "tasks-required-task-error",
            "tasks-mrtr-composition");
    private static TernProcess tern;

    @BeforeAll
    static void start() throws Exception {
        NodeTools.npmDir();
        tern = TernProcess.http("conformance");
    }

    @AfterAll
    static void stop() throws Exception {
        if (tern != null) {
            tern.close();
        }
    }

    @Test
    void stableReleaseActiveScenarios() throws Exception {
        assertPasses("conformance-0.1", List.of());
    }

    @Test
    void stableReleasePendingScenarios() throws Exception {
        assertPasses("conformance-0.1", List.of("--suite", "pending"));
    }

    @Test
    void requirementsOf20251125() throws Exception {
        assertPasses("conformance-0.2", List.of("--requirements", "2025-11-25"));
    }

    @Test
    void requirementsOf20260728() throws Exception {
        assertPasses("conformance-0.2", List.of("--requirements", "2026-07-28"), TASKS_EXTENSION);
    }

    private static void assertPasses(String release, List<String> args) throws Exception {
        assertPasses(release, args, List.of());
    }

    private static void assertPasses(String release, List<String> args, List<String> scenarios) throws Exception {
        Path npm = NodeTools.npmDir();
        Path cli = npm.resolve("node_modules").resolve(release).resolve("dist/index.js");
        assertThat(Files.exists(cli)).as(cli + " installed").isTrue();
        List<String> command = new ArrayList<>(List.of(NodeTools.node().toString(), cli.toString(), "server",
                "--url", tern.url()));
        command.addAll(args);
        NodeTools.Result result = NodeTools.run(command, npm, Map.of("NO_COLOR", "1"), RUN_TIMEOUT);
        String summary = result.stdout().contains("=== SUMMARY ===")
                ? result.stdout().substring(result.stdout().indexOf("=== SUMMARY ===")) : result.describe();
        assertThat(result.exitCode()).as("conformance %s %s:%n%s", release, args, summary).isZero();
        assertThat(result.stdout()).contains("=== SUMMARY ===");
        assertThat(summary).as("conformance %s %s: no scenario fails, scored or not", release, args).doesNotContain("✗");
        for (String scenario : scenarios) {
            assertThat(summary).as("conformance %s %s runs %s", release, args, scenario).contains("✓ " + scenario + ":");
        }
    }
}
