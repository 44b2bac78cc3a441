package dev.tern.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** An open loop's pacing: requests due within it of one being sent go together, on an I/O thread or without one. */
class PacingTest {

    /** Answers at once and notes when each request was sent; {@code io} null for a target without an I/O thread. */
    private static final class Instant implements Target {
        final List<Long> sent = new ArrayList<>();
        final ScheduledExecutorService io;

        Instant(boolean withIoThread) {
            io = withIoThread ? Executors.newSingleThreadScheduledExecutor() : null;
        }

        @Override
        public synchronized CompletableFuture<Outcome> call(Operation operation) {
            sent.add(System.nanoTime());
            return CompletableFuture.completedFuture(Outcome.ok());
        }

        @Override
        public ScheduledExecutorService ioThread() {
            return io;
        }

        @Override
        public String describe() {
            return "instant";
        }

        @Override
        public void close() {
            if (io != null) {
                io.shutdownNow();
            }
        }

        /** How many times the sender woke up: sends more than {@code gapNanos} after the previous one. */
        synchronized int wakeUps(long gapNanos) {
            int n = 0;
            for (int i = 0; i < sent.size(); i++) {
                if (i == 0 || sent.get(i) - sent.get(i - 1) > gapNanos) {
                    n++;
                }
            }
            return n;
        }
    }

    @Test
    void requestsDueWithinThePacingGoTogether() throws Exception {
        for (boolean withIoThread : new boolean[] {true, false}) {
            // 1,000 a second for 1 s: one due every millisecond, 10 within each 10 ms of pacing (a stalled machine
            // merges bursts, so only the upper bound is tight).
            Instant target = new Instant(withIoThread);
            try (LoadRunner runner = LoadRunner.of(target, Workload.of(Operation.callTool("t", "{}")))) {
                RunResult r = runner.run("paced", LoadSpec.openLoop(1000, Duration.ofSeconds(1))
                        .withPacing(Duration.ofMillis(10)));

                assertThat(r.ok()).isEqualTo(1000);
                assertThat(target.wakeUps(2_000_000)).as("with an I/O thread: %s", withIoThread).isBetween(20, 130);
            }
            Instant fine = new Instant(withIoThread);
            try (LoadRunner runner = LoadRunner.of(fine, Workload.of(Operation.callTool("t", "{}")))) {
                RunResult r = runner.run("each", LoadSpec.openLoop(1000, Duration.ofSeconds(1))
                        .withPacing(Duration.ZERO));

                assertThat(r.ok()).isEqualTo(1000);
                assertThat(fine.wakeUps(400_000)).as("with an I/O thread: %s", withIoThread).isGreaterThan(400);
            }
        }
    }

    @Test
    void pacingIsBounded() {
        LoadSpec spec = LoadSpec.openLoop(10, Duration.ofSeconds(1));
        assertThat(spec.pacing()).isEqualTo(LoadSpec.DEFAULT_PACING);
        assertThatThrownBy(() -> spec.withPacing(Duration.ofNanos(-1))).hasMessageContaining("pacing");
        assertThatThrownBy(() -> spec.withPacing(Duration.ofMillis(11))).hasMessageContaining("expected: from 0");
    }
}
