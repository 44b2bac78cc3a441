package dev.tern.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class HandlerDeadlinesTest {
    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    @Test
    void aDeadlineThatPassesFiresOnceAndIsForgotten() throws InterruptedException {
        HandlerDeadlines deadlines = new HandlerDeadlines(scheduler, Duration.ofMillis(50));
        AtomicInteger fired = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(1);
        deadlines.arm(() -> {
            fired.incrementAndGet();
            done.countDown();
        });

        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(deadlines.armedCount()).isZero();
        Thread.sleep(100);
        assertThat(fired).hasValue(1);
    }

    @Test
    void aDisarmedDeadlineNeverFires() throws InterruptedException {
        HandlerDeadlines deadlines = new HandlerDeadlines(scheduler, Duration.ofMillis(50));
        AtomicInteger fired = new AtomicInteger();
        deadlines.arm(fired::incrementAndGet).disarm();
        CountDownLatch later = new CountDownLatch(1);
        deadlines.arm(later::countDown);

        assertThat(later.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(fired).hasValue(0);
        assertThat(deadlines.armedCount()).isZero();
    }

    @Test
    void aFailingExpiryDoesNotStopTheSweep() throws InterruptedException {
        HandlerDeadlines deadlines = new HandlerDeadlines(scheduler, Duration.ofMillis(50));
        deadlines.arm(() -> {
            throw new IllegalStateException("broken expiry");
        });
        CountDownLatch second = new CountDownLatch(1);
        Thread.sleep(200);
        deadlines.arm(second::countDown);

        assertThat(second.await(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aDeadlineDoesNotFireBeforeItsTimeout() throws InterruptedException {
        HandlerDeadlines deadlines = new HandlerDeadlines(scheduler, Duration.ofMinutes(5));
        AtomicInteger fired = new AtomicInteger();
        deadlines.arm(fired::incrementAndGet);
        Thread.sleep(300);

        assertThat(fired).hasValue(0);
        assertThat(deadlines.armedCount()).isEqualTo(1);
    }
}
