package dev.tern.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;

class BreakersTest {
    /** Long enough that no open breaker lets a trial through while a test runs. */
    private static final Duration OPEN = Duration.ofMinutes(5);

    /** The layout of a cluster of three masters, m1, m2 and m3, each holding a third of the slots. */
    private final Partitions layout = new Partitions();
    private final Breakers breakers = Breakers.perMaster(() -> layout, () -> new Breaker(3, OPEN));

    private final String onM1 = keyIn(0, 5460);
    private final String onM2 = keyIn(5461, 10922);
    private final String onM3 = keyIn(10923, 16383);

    BreakersTest() {
        layout.reload(List.of(master("m1", 0, 5460, 6001), master("m2", 5461, 10922, 6002),
                master("m3", 10923, 16383, 6003)));
    }

    @Test
    void failuresOfOneMastersKeysOpenOnlyThatMastersBreaker() {
        fail(breakers.forKey(onM1));

        assertThat(breakers.forKey(onM1).allows()).isFalse();
        assertThat(breakers.forKey(onM2).allows()).isTrue();
        assertThat(breakers.forKey(onM3).allows()).isTrue();
        assertThat(breakers.withoutKey().allows()).as("commands without a key").isTrue();
    }

    @Test
    void keysOfOneMasterShareItsBreakerWhicheverSlotTheyLieIn() {
        String another = keyIn(0, 5460, onM1);
        assertThat(SlotHash.getSlot(another)).isNotEqualTo(SlotHash.getSlot(onM1));

        fail(breakers.forKey(another));

        assertThat(breakers.forKey(onM1).allows()).isFalse();
    }

    @Test
    void theKeysOfOneSessionAreJudgedByTheSameBreakerThroughTheirHashTag() {
        assertThat(breakers.forKey(Keys.events("s-1", "x.1"))).isSameAs(breakers.forKey(Keys.session("s-1")))
                .isSameAs(breakers.forKey(Keys.eventStreams("s-1")));
        assertThat(breakers.forKey(Keys.taskLease("t-9"))).isSameAs(breakers.forKey(Keys.TASK_QUEUE));
    }

    @Test
    void failuresOfCommandsWithoutAKeyOpenOnlyTheirOwnBreaker() {
        fail(breakers.withoutKey());

        assertThat(breakers.withoutKey().allows()).isFalse();
        assertThat(breakers.forKey(onM1).allows()).isTrue();
        assertThat(breakers.forKey(onM2).allows()).isTrue();
    }

    @Test
    void theReplicaPromotedInAFailoverStartsWithAClosedBreakerForTheDeadMastersSlots() {
        fail(breakers.forKey(onM1));

        layout.reload(List.of(master("r1", 0, 5460, 6004), master("m2", 5461, 10922, 6002),
                master("m3", 10923, 16383, 6003)));

        assertThat(breakers.forKey(onM1).allows()).isTrue();
    }

    @Test
    void slotsNoMasterServesShareABreakerOfTheirOwn() {
        fail(breakers.forKey(onM2));
        // the cluster marked m1 failed, so the layout leaves it out and its slots have no master
        layout.reload(List.of(master("m2", 5461, 10922, 6002), master("m3", 10923, 16383, 6003)));

        fail(breakers.forKey(onM1));

        assertThat(breakers.forKey(onM1).allows()).isFalse();
        assertThat(breakers.forKey(keyIn(0, 5460, onM1)).allows()).as("another unserved slot").isFalse();
        assertThat(breakers.forKey(onM2).allows()).as("m2's breaker stays as it was").isFalse();
        assertThat(breakers.forKey(onM3).allows()).isTrue();
    }

    @Test
    void aMasterThatLeftTheLayoutAndCameBackStartsClosed() {
        fail(breakers.forKey(onM1));
        layout.reload(List.of(master("m2", 0, 10922, 6002), master("m3", 10923, 16383, 6003)));
        assertThat(breakers.forKey(onM1).allows()).as("m2 took m1's slots").isTrue();

        layout.reload(List.of(master("m1", 0, 5460, 6001), master("m2", 5461, 10922, 6002),
                master("m3", 10923, 16383, 6003)));

        assertThat(breakers.forKey(onM1).allows()).isTrue();
    }

    @Test
    void aSingleServerHasOneBreakerForEveryCommand() {
        Breakers single = Breakers.single(() -> new Breaker(3, OPEN));

        fail(single.forKey(onM1));

        assertThat(single.forKey(onM2).allows()).isFalse();
        assertThat(single.withoutKey().allows()).isFalse();
    }

    @Test
    void aBreakerLetsCallsThroughAgainOnceASuccessEndsTheRunOfFailures() {
        Breaker breaker = new Breaker(3, Duration.ZERO);
        breaker.failed();
        breaker.failed();
        breaker.succeeded();
        breaker.failed();
        assertThat(breaker.open()).as("two failures, a success, one failure").isFalse();
        breaker.failed();
        breaker.failed();
        assertThat(breaker.open()).isTrue();
        assertThat(breaker.allows()).as("the trial once the open time is over").isTrue();
        breaker.succeeded();
        assertThat(breaker.open()).isFalse();
    }

    private static void fail(Breaker breaker) {
        for (int i = 0; i < 3; i++) {
            assertThat(breaker.allows()).isTrue();
            breaker.failed();
        }
    }

    private static RedisClusterNode master(String id, int from, int to, int port) {
        List<Integer> slots = new ArrayList<>();
        IntStream.rangeClosed(from, to).forEach(slots::add);
        return new RedisClusterNode(RedisURI.create("127.0.0.1", port), id, true, null, 0, 0, 1, slots,
                Set.of(RedisClusterNode.NodeFlag.UPSTREAM));
    }

    /** A session's key whose slot lies in {@code [from, to]} and differs from the slots of {@code others}. */
    private static String keyIn(int from, int to, String... others) {
        for (int i = 0; ; i++) {
            String key = Keys.session("s" + i);
            int slot = SlotHash.getSlot(key);
            if (slot >= from && slot <= to
                    && java.util.Arrays.stream(others).noneMatch(o -> SlotHash.getSlot(o) == slot)) {
                return key;
            }
        }
    }
}
