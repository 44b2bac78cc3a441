package dev.tern.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code tern} launcher script: the JVM memory settings it gives tern, how TERN_JAVA_OPTS replaces them, and the
 * start-up cache.
 */
class LauncherTest {
    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    private static NodeTools.Result version(String javaOptions) throws Exception {
        return version(javaOptions, "off");
    }

    private static NodeTools.Result version(String javaOptions, String startupCache) throws Exception {
        Path root = NodeTools.root();
        NodeTools.Result result = NodeTools.run(List.of("bash", root.resolve("tern").toString(), "--version"), root,
                Map.of("TERN_STARTUP_CACHE", startupCache, "TERN_JAVA_OPTS", javaOptions + " -XX:+PrintCommandLineFlags"),
                TIMEOUT);
        assertThat(result.exitCode()).as(result.describe()).isZero();
        assertThat(result.stdout()).contains("tern ");
        return result;
    }

    @Test
    void runsTheSerialCollectorWithA32MiBYoungGenerationAndHalfTheMemoryByDefault() throws Exception {
        String flags = version("").stdout();

        assertThat(flags).contains("-XX:+UseSerialGC", "-XX:NewSize=33554432", "-XX:MaxNewSize=33554432",
                "-XX:MaxRAMPercentage=50", "-XX:+ExitOnOutOfMemoryError");
    }

    @Test
    void onJdk22AndLaterTheNativeHeapIsTrimmedEveryFiveSecondsUnlessTernJavaOptsSaysOtherwise() throws Exception {
        // the launcher finds the same JDK as the one running the build (bin/find-java.sh)
        if (Runtime.version().feature() < 22) {
            assertThat(version("").stdout()).doesNotContain("TrimNativeHeapInterval");
            return;
        }
        assertThat(version("").stdout()).contains("-XX:TrimNativeHeapInterval=5000");
        assertThat(version("-XX:TrimNativeHeapInterval=0").stdout()).contains("-XX:TrimNativeHeapInterval=0")
                .doesNotContain("TrimNativeHeapInterval=5000");
    }

    @Test
    void aCollectorInTernJavaOptsReplacesTheDefaultOneAndItsYoungGenerationSize() throws Exception {
        String flags = version("-XX:+UseParallelGC").stdout();

        assertThat(flags).contains("-XX:+UseParallelGC").doesNotContain("UseSerialGC", "NewSize=33554432");
    }

    @Test
    void aYoungGenerationOrHeapSizeInTernJavaOptsReplacesOnlyThatDefault() throws Exception {
        String flags = version("-Xmn48m -Xmx512m").stdout();

        assertThat(flags).contains("-XX:+UseSerialGC", "-XX:NewSize=50331648", "-XX:MaxHeapSize=536870912")
                .doesNotContain("NewSize=33554432", "MaxRAMPercentage");
    }

    @Test
    void startsFromTheCacheAndOnTwoCpusOrFewerWithoutReplayingTheTrainingProfiles() throws Exception {
        version("", "on");
        String flags = version("", "on").stdout();

        assertThat(flags).containsAnyOf("-XX:AOTCache=", "-XX:SharedArchiveFile=");
        boolean fewCpus = cpuCount("/sys/fs/cgroup") <= 2;
        if (flags.contains("-XX:AOTCache=") && fewCpus) {
            assertThat(flags).contains("-XX:-AOTReplayTraining");
        } else {
            assertThat(flags).doesNotContain("AOTReplayTraining");
        }
    }

    /** What bin/jvm-flags.sh's {@code tern_cpu_count} prints for the cgroup file system at {@code cgroupRoot}. */
    private static int cpuCount(String cgroupRoot) throws Exception {
        NodeTools.Result result = NodeTools.run(List.of("bash", "-c", "source bin/jvm-flags.sh && tern_cpu_count \"$1\"",
                "tern_cpu_count", cgroupRoot), NodeTools.root(), Map.of(), TIMEOUT);
        assertThat(result.exitCode()).as(result.describe()).isZero();
        return Integer.parseInt(result.stdout().strip());
    }

    @Test
    void theCpuCountIsTheCpuQuotaOfTheCgroupWhenItAllowsFewerCpus(@TempDir Path cgroups) throws Exception {
        int online = Integer.parseInt(NodeTools.run(List.of("nproc"), NodeTools.root(), Map.of(), TIMEOUT).stdout().strip());
        Path v2 = Files.createDirectories(cgroups.resolve("v2"));
        Path v1 = Files.createDirectories(cgroups.resolve("v1/cpu"));

        assertThat(cpuCount(cgroups.resolve("none").toString())).isEqualTo(online);
        Files.writeString(v2.resolve("cpu.max"), "max 100000\n");
        assertThat(cpuCount(v2.toString())).isEqualTo(online);
        Files.writeString(v2.resolve("cpu.max"), "150000 100000\n");
        assertThat(cpuCount(v2.toString())).isEqualTo(Math.min(online, 2));
        Files.writeString(v2.resolve("cpu.max"), "50000 100000");
        assertThat(cpuCount(v2.toString())).isEqualTo(1);
        Files.writeString(v1.resolve("cpu.cfs_quota_us"), "-1\n");
        Files.writeString(v1.resolve("cpu.cfs_period_us"), "100000\n");
        assertThat(cpuCount(v1.getParent().toString())).isEqualTo(online);
        Files.writeString(v1.resolve("cpu.cfs_quota_us"), "100000\n");
        assertThat(cpuCount(v1.getParent().toString())).isEqualTo(1);
    }

    @Test
    void theCpuCountIsTheCpusThisProcessMayRunOn() throws Exception {
        NodeTools.Result pinned = NodeTools.run(List.of("taskset", "-c", "0", "bash", "-c",
                "source bin/jvm-flags.sh && tern_cpu_count"), NodeTools.root(), Map.of(), TIMEOUT);

        assertThat(pinned.exitCode()).as(pinned.describe()).isZero();
        assertThat(pinned.stdout().strip()).isEqualTo("1");
    }

    @Test
    void aJarNewerThanItsCacheIsTrainedAgainOnceAndTheNewCacheUsed() throws Exception {
        version("", "on");
        Path jar = NodeTools.root().resolve("tern-cli/target/tern.jar");
        Files.setLastModifiedTime(jar, java.nio.file.attribute.FileTime.from(java.time.Instant.now()));

        NodeTools.Result retrained = version("", "on");
        NodeTools.Result next = version("", "on");

        assertThat(retrained.stderr()).contains("preparing the start-up cache");
        assertThat(retrained.stdout()).containsAnyOf("-XX:AOTCache=", "-XX:SharedArchiveFile=");
        assertThat(next.stderr()).doesNotContain("preparing the start-up cache");
        assertThat(next.stdout()).containsAnyOf("-XX:AOTCache=", "-XX:SharedArchiveFile=");
    }

    @Test
    void replayOfTheTrainingProfilesSetInTernJavaOptsIsKept() throws Exception {
        String options = "-XX:+UnlockDiagnosticVMOptions -XX:+AOTReplayTraining";
        version(options, "on");
        String flags = version(options, "on").stdout();

        assertThat(flags).contains("-XX:+AOTReplayTraining").doesNotContain("-XX:-AOTReplayTraining");
    }

    @Test
    void allowsNettyUnsafeMemoryAccessOnJdksThatHaveTheOption() throws Exception {
        String settings = version("-XshowSettings:properties").stderr();

        java.util.regex.Matcher release = java.util.regex.Pattern.compile("java\\.specification\\.version = (\\d+)")
                .matcher(settings);
        assertThat(release.find()).as(settings).isTrue();
        if (Integer.parseInt(release.group(1)) >= 23) {
            assertThat(settings).contains("sun.misc.unsafe.memory.access = allow");
        } else {
            assertThat(settings).doesNotContain("sun.misc.unsafe.memory.access");
        }
    }
}
