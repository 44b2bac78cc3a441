package dev.tern.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

import jdk.jfr.Recording;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link GcPauses} against a JFR recording of this JVM in which collections are forced inside a window and after it. */
class GcPausesTest {

    @Test
    void countsThePausesOfTheCollectionsInTheWindowOnly(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("gc.jfr");
        Instant from;
        Instant to;
        try (Recording recording = new Recording()) {
            recording.enable("jdk.GarbageCollection");
            recording.start();
            Thread.sleep(20);
            from = Instant.now();
            for (int i = 0; i < 3; i++) {
                System.gc();
            }
            to = Instant.now();
            Thread.sleep(20);
            System.gc();
            System.gc();
            recording.stop();
            recording.dump(file);
        }

        GcPauses inWindow = GcPauses.read(file, from, to);
        assertThat(inWindow.collections()).as("System.gc() collects unless disabled").isEqualTo(3);
        assertThat(inWindow.paused()).isPositive().isLessThanOrEqualTo(Duration.between(from, to));
        assertThat(inWindow.longest()).isPositive().isLessThanOrEqualTo(inWindow.paused());
        assertThat(inWindow.share()).isGreaterThan(0).isLessThanOrEqualTo(1);
        assertThat(inWindow.describe()).startsWith("GC pauses ").contains("(3 collections, longest ");

        GcPauses before = GcPauses.read(file, from.minusSeconds(60), from);
        assertThat(before.collections()).isZero();
        assertThat(before.paused()).isZero();
        assertThatThrownBy(() -> GcPauses.read(file, to, from)).isInstanceOf(IllegalArgumentException.class);
    }
}
