package dev.tern.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class CancellationTest {

    @Test
    void startsNotCancelled() {
        Cancellation c = new Cancellation();
        assertThat(c.isCancelled()).isFalse();
        assertThat(c.reason()).isNull();
        assertThatCode(c::throwIfCancelled).doesNotThrowAnyException();
    }

    @Test
    void cancelRecordsTheReasonOnce() {
        Cancellation c = new Cancellation();
        assertThat(c.cancel("user asked")).isTrue();
        assertThat(c.isCancelled()).isTrue();
        assertThat(c.reason()).isEqualTo("user asked");
        assertThat(c.cancel("again")).isFalse();
        assertThat(c.reason()).isEqualTo("user asked");
    }

    @Test
    void aNullReasonStillCancels() {
        Cancellation c = new Cancellation();
        assertThat(c.cancel(null)).isTrue();
        assertThat(c.isCancelled()).isTrue();
        assertThat(c.reason()).isNotNull();
    }

    @Test
    void throwIfCancelledThrowsWithTheReason() {
        Cancellation c = new Cancellation();
        c.cancel("timed out");
        assertThatThrownBy(c::throwIfCancelled).isInstanceOf(CancellationException.class).hasMessage("timed out");
    }

    @Test
    void callbacksRunOnceInOrderWhenCancelled() {
        Cancellation c = new Cancellation();
        List<String> calls = new ArrayList<>();
        c.onCancel(() -> calls.add("a"));
        c.onCancel(() -> calls.add("b"));
        assertThat(calls).isEmpty();
        c.cancel("x");
        assertThat(calls).containsExactly("a", "b");
        c.cancel("y");
        assertThat(calls).containsExactly("a", "b");
    }

    @Test
    void aCallbackRegisteredAfterCancellationRunsAtOnce() {
        Cancellation c = new Cancellation();
        c.cancel("x");
        AtomicInteger runs = new AtomicInteger();
        c.onCancel(runs::incrementAndGet);
        assertThat(runs).hasValue(1);
    }

    @Test
    void aFailingCallbackDoesNotStopTheOthers() {
        Cancellation c = new Cancellation();
        AtomicInteger runs = new AtomicInteger();
        c.onCancel(() -> {
            throw new IllegalStateException("boom");
        });
        c.onCancel(runs::incrementAndGet);
        assertThat(c.cancel("x")).isTrue();
        assertThat(runs).hasValue(1);
    }

    @Test
    void concurrentCancelsCancelExactlyOnceAndRunEachCallbackOnce() throws InterruptedException {
        for (int round = 0; round < 50; round++) {
            Cancellation c = new Cancellation();
            AtomicInteger callbackRuns = new AtomicInteger();
            AtomicInteger winners = new AtomicInteger();
            int threads = 8;
            CountDownLatch start = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(threads * 2);
            for (int i = 0; i < threads; i++) {
                Thread.ofVirtual().start(() -> {
                    await(start);
                    if (c.cancel("race")) {
                        winners.incrementAndGet();
                    }
                    done.countDown();
                });
                Thread.ofVirtual().start(() -> {
                    await(start);
                    c.onCancel(callbackRuns::incrementAndGet);
                    done.countDown();
                });
            }
            start.countDown();
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(winners).hasValue(1);
            assertThat(callbackRuns).hasValue(threads);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
