package dev.tern.transport.http;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ClientSharesTest {

    @Test
    void aClientGetsItsShareAndNoMoreUntilItGivesOneBack() {
        ClientShares shares = new ClientShares(2);
        String a = ClientShares.client(null, "10.0.0.1");
        assertThat(shares.tryAcquire(a)).isEqualTo(a);
        assertThat(shares.tryAcquire(new String(a))).as("one key string per client, not each caller's").isSameAs(a);
        assertThat(shares.held(a)).isEqualTo(2);
        assertThat(shares.tryAcquire(a)).isNull();
        assertThat(shares.tryAcquire(ClientShares.client(null, "10.0.0.2"))).isNotNull();
        shares.release(a);
        assertThat(shares.held(a)).isEqualTo(1);
        assertThat(shares.tryAcquire(a)).isNotNull();
    }

    @Test
    void givingBackAPlaceNeverTakenIsCaught() {
        ClientShares shares = new ClientShares(1);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> shares.release("address 10.0.0.9"))
                .isInstanceOf(AssertionError.class);
    }

    @Test
    void aPrincipalAndAnAddressNeverShareAKey() {
        assertThat(ClientShares.client("10.0.0.1", "10.0.0.1")).isNotEqualTo(ClientShares.client(null, "10.0.0.1"));
        assertThat(ClientShares.client("alice", "10.0.0.1")).isEqualTo(ClientShares.client("alice", "10.0.0.2"));
    }

    @Test
    void racingTakersNeverExceedTheShareAndGivingAllBackLeavesNothing() throws Exception {
        ClientShares shares = new ClientShares(5);
        String client = ClientShares.client("tenant", "10.0.0.1");
        AtomicInteger holding = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 20_000; i++) {
                    String held = shares.tryAcquire(client);
                    if (held != null) {
                        most.accumulateAndGet(holding.incrementAndGet(), Math::max);
                        holding.decrementAndGet();
                        shares.release(held);
                    }
                }
            }));
        }
        start.countDown();
        for (Thread thread : threads) {
            thread.join(30_000);
        }
        assertThat(most.get()).isBetween(1, 5);
        assertThat(shares.held(client)).isZero();
        for (int i = 0; i < 5; i++) {
            assertThat(shares.tryAcquire(client)).as("place %d", i).isNotNull();
        }
        assertThat(shares.tryAcquire(client)).isNull();
    }
}
