package dev.tern.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

class ServerProcessTest {
    private static final List<String> SERVE = List.of("serve", "--example", "user-directory", "--host", "127.0.0.1",
            "--port", "0");

    @Test
    void aChildServerGetsThisJvmsMemorySettingsButNotItsCacheOrAgents() {
        var own = List.of("-XX:+ExitOnOutOfMemoryError", "-XX:MaxRAMPercentage=50", "-XX:+UseSerialGC",
                "-Xmn64m", "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "-XX:AOTCache=/x/tern-startup-1.aot", "-XX:+UnlockDiagnosticVMOptions", "-XX:-AOTReplayTraining",
                "-XX:SharedArchiveFile=/x/tern.jsa", "-Xshare:auto", "-agentpath:/x/libprofiler.so=start",
                "-javaagent:/x/jacoco.jar", "-XX:StartFlightRecording=filename=x.jfr", "-Dtern.example=1");

        assertThat(ServerProcess.childJvmOptions(own)).containsExactly("-XX:+ExitOnOutOfMemoryError",
                "-XX:MaxRAMPercentage=50", "-XX:+UseSerialGC", "-Xmn64m", "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow", "-XX:+UnlockDiagnosticVMOptions", "-Dtern.example=1");
    }

    @Test
    void aChildServerRunsUnderTasksetOnlyWhenGivenCpusAndIsRecordedOnlyWhenGivenAFile() {
        var own = List.of("-XX:+UseSerialGC", "-agentpath:/x/libprofiler.so=start");

        assertThat(ServerProcess.javaCommand("/jdk/bin/java", own, "tern.jar", "dev.tern.cli.Main", SERVE, null, null))
                .containsExactly("/jdk/bin/java", "-XX:+UseSerialGC", "-cp", "tern.jar", "dev.tern.cli.Main", "serve",
                        "--example", "user-directory", "--host", "127.0.0.1", "--port", "0");
        assertThat(ServerProcess.javaCommand("/jdk/bin/java", own, "tern.jar", "dev.tern.cli.Main", SERVE, "0,2-3",
                null))
                .startsWith("taskset", "-c", "0,2-3", "/jdk/bin/java", "-XX:+UseSerialGC")
                .endsWith("--port", "0");
        assertThat(ServerProcess.javaCommand("/jdk/bin/java", own, "tern.jar", "dev.tern.cli.Main", SERVE, null,
                Path.of("s.jfr")))
                .containsSubsequence("/jdk/bin/java", "-XX:+UseSerialGC", "-XX:StartFlightRecording=settings=profile,"
                        + "dumponexit=true,filename=" + Path.of("s.jfr").toAbsolutePath(), "-cp", "tern.jar");
    }

    @Test
    void cpuListsAreWhatTasksetTakes() {
        assertThat(ServerProcess.isCpuList("0")).isTrue();
        assertThat(ServerProcess.isCpuList("0,2-3")).isTrue();
        assertThat(ServerProcess.isCpuList("0,")).isFalse();
        assertThat(ServerProcess.isCpuList("first")).isFalse();
    }

    @Test
    void closingStopsTheServerAndWhatItStarted() throws Exception {
        ServerProcess server = ServerProcess.spawn(List.of("sh", "-c", "sleep 60 & wait"));
        ProcessHandle handle = ProcessHandle.of(server.pid()).orElseThrow();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (handle.descendants().findAny().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        List<ProcessHandle> children = handle.descendants().toList();
        assertThat(children).isNotEmpty();

        server.close();

        assertThat(handle.isAlive()).isFalse();
        for (ProcessHandle child : children) {
            child.onExit().get(5, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(child.isAlive()).isFalse();
        }
    }
}
