package dev.tern.bench;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.tern.bench.targets.StdioMcpTarget;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PiecesTest {

    @Test
    void serverTimingHeaderGivesTheFourPhases() {
        ServerTiming t = ServerTiming.parse("parse;dur=0.010, queue;dur=0.004, exec;desc=\"tool\";dur=1.5, ser;dur=0.008");

        assertThat(t).isEqualTo(new ServerTiming(10_000, 4_000, 1_500_000, 8_000));
        assertThat(ServerTiming.parse("db;dur=3, cache;desc=hit")).isNull();
        assertThat(ServerTiming.parse("exec;dur=2")).isEqualTo(new ServerTiming(-1, -1, 2_000_000, -1));
        assertThat(ServerTiming.parse("exec;dur=oops")).isNull();
        assertThat(ServerTiming.parse(null)).isNull();
    }

    @Test
    void aMixIsInterleavedInItsProportions() {
        Operation call = Operation.callTool("get_user", "{\"id\":\"1\"}");
        Operation list = Operation.listTools();
        Operation read = Operation.readResource("user://1");
        Map<Operation, Integer> weights = new LinkedHashMap<>();
        weights.put(call, 8);
        weights.put(list, 1);
        weights.put(read, 1);
        Workload mix = Workload.mix(weights);
        Map<Operation, Integer> counts = new HashMap<>();
        for (int i = 0; i < 1000; i++) {
            counts.merge(mix.next(), 1, Integer::sum);
        }

        assertThat(counts).containsEntry(call, 800).containsEntry(list, 100).containsEntry(read, 100);
        // Never two of the rare ones in a row: the mix holds over any stretch of ten requests.
        Workload again = Workload.mix(weights);
        for (int i = 0; i < 10; i++) {
            Operation a = again.next();
            Operation b = again.next();
            assertThat(a != call && b != call).isFalse();
        }
        assertThat(mix.toString()).isEqualTo("mix tools/call get_user:8, tools/list:1, resources/read user://1:1");
        assertThatThrownBy(() -> Workload.mix(Map.of(call, 0))).hasMessageContaining("expected: > 0");
    }

    @Test
    void durationsAsPeopleWriteThem() {
        assertThat(Durations.parse("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(Durations.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(Durations.parse("90")).isEqualTo(Duration.ofSeconds(90));
        assertThat(Durations.parse("PT20S")).isEqualTo(Duration.ofSeconds(20));
        assertThatThrownBy(() -> Durations.parse("soon")).hasMessageContaining("expected: e.g. 30s");
        assertThatThrownBy(() -> Durations.parse("PTsoon")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expected: e.g. 30s");
    }

    @Test
    void loadSpecsRefuseNonsense() {
        assertThatThrownBy(() -> LoadSpec.openLoop(0, Duration.ofSeconds(1))).hasMessageContaining("rate: 0.0");
        assertThatThrownBy(() -> LoadSpec.closedLoop(0, Duration.ofSeconds(1))).hasMessageContaining("connections");
        assertThatThrownBy(() -> LoadSpec.openLoop(10, Duration.ZERO)).hasMessageContaining("expected: > 0");
        LoadSpec burst = LoadSpec.burst(100, 1000, Duration.ofSeconds(5));
        assertThat(burst.duration()).isEqualTo(Duration.ofSeconds(15));
        assertThat(burst.describe()).isEqualTo("open loop 100/s for 5s, 1,000/s for 5s, 100/s for 5s");
        assertThat(LoadSpec.closedLoop(8, Duration.ofSeconds(1)).describe()).isEqualTo("closed loop, 8 connections");
    }

    @Test
    void processSamplerReadsThisProcess() {
        ProcessSampler.Sample s = ProcessSampler.of(ProcessHandle.current().pid()).sample();

        assertThat(s).isNotNull();
        assertThat(s.cpuNanos()).isPositive();
        assertThat(s.rssBytes()).isGreaterThan(1 << 20);
        assertThat(ProcessSampler.of(Integer.MAX_VALUE).sample()).isNull();
    }

    @Test
    void processSamplerReadsTheResidentSetSizeThatStatusShows() throws Exception {
        long vmRss = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status")).stream()
                .filter(line -> line.startsWith("VmRSS:"))
                .mapToLong(line -> Long.parseLong(line.substring(6).replace("kB", "").strip()) * 1024)
                .findFirst().orElseThrow();

        long sampled = ProcessSampler.of(ProcessHandle.current().pid()).sample().rssBytes();

        assertThat(sampled).isBetween(vmRss - vmRss / 10, vmRss + vmRss / 10);
    }

    @Test
    void processSamplerLooksForDescendantsAgainWhenOneHasGone() throws Exception {
        Process wrapper = new ProcessBuilder("sh", "-c", "sleep 20; sleep 20").start();
        try {
            ProcessHandle first = awaitChild(wrapper, -1);
            ProcessSampler sampler = new ProcessSampler(wrapper.pid(), Long.MAX_VALUE);
            ProcessSampler.Sample withFirst = sampler.sample();
            assertThat(withFirst.rssBytes()).isGreaterThan(ProcessSampler.sample(wrapper.pid()).rssBytes());

            first.destroyForcibly();
            first.onExit().get(5, java.util.concurrent.TimeUnit.SECONDS);
            awaitChild(wrapper, first.pid());
            ProcessSampler.Sample firstGone = sampler.sample();
            ProcessSampler.Sample withSecond = sampler.sample();

            assertThat(firstGone.rssBytes()).isLessThan(withFirst.rssBytes());
            assertThat(withSecond.rssBytes()).isGreaterThan(firstGone.rssBytes());
        } finally {
            wrapper.descendants().forEach(ProcessHandle::destroyForcibly);
            wrapper.destroyForcibly().waitFor();
        }
    }

    /** The wrapper's child once there is one other than {@code not}. */
    private static ProcessHandle awaitChild(Process wrapper, long not) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < deadline) {
            java.util.Optional<ProcessHandle> child = wrapper.children().filter(c -> c.pid() != not).findAny();
            if (child.isPresent()) {
                return child.get();
            }
            Thread.sleep(10);
        }
        throw new AssertionError("the wrapper started no child");
    }

    @Test
    void processSamplerCountsWhatAWrapperStarted() throws Exception {
        Process wrapper = new ProcessBuilder("sh", "-c", "sleep 20; true").start();
        try {
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (wrapper.descendants().findAny().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            ProcessSampler.Sample tree = ProcessSampler.of(wrapper.pid()).sample();
            ProcessSampler.Sample alone = ProcessSampler.sample(wrapper.pid());

            assertThat(wrapper.descendants().count()).isEqualTo(1);
            assertThat(tree.rssBytes()).isGreaterThan(alone.rssBytes());
        } finally {
            wrapper.descendants().forEach(ProcessHandle::destroyForcibly);
            wrapper.destroyForcibly().waitFor();
        }
    }

    @Test
    void failuresAreSortedIntoTimeoutsAndTransportErrors() {
        Outcome late = Outcome.transport(new java.util.concurrent.CompletionException(
                new java.util.concurrent.TimeoutException("no complete response within PT10S")));
        Outcome refused = Outcome.transport(new java.net.ConnectException("Connection refused"));

        assertThat(late.status()).isEqualTo(Outcome.Status.TIMEOUT);
        assertThat(late.detail()).isEqualTo("TimeoutException: no complete response within PT10S");
        assertThat(refused.status()).isEqualTo(Outcome.Status.TRANSPORT);
        assertThat(refused.status().answered()).isFalse();
    }

    @Test
    void connectionsReportedAfterTheRunClosedAreLeftOutOfItsFigures() {
        Measurement m = new Measurement(0, 0, 1, Outcome.failed(Outcome.Status.TIMEOUT, "late"));
        m.connected(1_000_000);
        m.tlsHandshake(2_000_000, false);
        m.close();
        m.connected(3_000_000);
        m.tlsHandshake(4_000_000, true);
        m.tlsHandshakeFailed("late");

        RunResult r = m.result("run", "target", "workload", LoadSpec.closedLoop(1, Duration.ofSeconds(1)),
                java.util.List.of(1.0), null, java.util.List.of());
        assertThat(r.connect().count()).isEqualTo(1);
        assertThat(r.tls().full()).isEqualTo(1);
        assertThat(r.tls().resumed()).isZero();
        assertThat(r.tls().failed()).isZero();
    }

    @Test
    void commandLinesSplitLikeAShell() {
        assertThat(StdioMcpTarget.split("java -jar 'my server.jar' --x \"a b\" ''"))
                .containsExactly("java", "-jar", "my server.jar", "--x", "a b", "");
    }
}
