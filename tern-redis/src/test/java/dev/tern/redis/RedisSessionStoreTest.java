package dev.tern.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;
import dev.tern.protocol.ProtocolVersion;
import dev.tern.protocol.model.LoggingLevel;
import dev.tern.server.LegacySessionState;
import dev.tern.server.StoreUnavailableException;
import dev.tern.testing.RedisServer;

/** The session store's touch without waiting, against a real redis-server. */
class RedisSessionStoreTest {
    private static final Duration TTL = Duration.ofMinutes(1);
    private static RedisServer redisServer;
    private static Redis redis;

    @BeforeAll
    static void start() {
        redisServer = RedisServer.start();
        redis = Redis.connect(redisServer.uri());
    }

    @AfterAll
    static void stop() {
        if (redis != null) {
            redis.close();
        }
        if (redisServer != null) {
            redisServer.close();
        }
    }

    private static LegacySessionState state(LoggingLevel level) {
        return new LegacySessionState(ProtocolVersion.V2025_11_25, Json.object(), null, level, Set.of());
    }

    private static long touched(RedisSessionStore store, String id) throws Exception {
        return store.touchAsync(id, TTL).toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    @Test
    void aTouchWithoutWaitingAnswersTheRevisionOfTheLatestSaveAndPushesTheExpiryBack() throws Exception {
        RedisSessionStore store = new RedisSessionStore(redis);
        store.save("s1", null, state(LoggingLevel.INFO), Duration.ofSeconds(5));
        long second = store.save("s1", null, state(LoggingLevel.ERROR), Duration.ofSeconds(5));

        assertThat(touched(store, "s1")).isEqualTo(second).isEqualTo(store.touch("s1", TTL));
        assertThat(redis.commands().pttl(Keys.session("s1"))).isGreaterThan(Duration.ofSeconds(30).toMillis());
    }

    @Test
    void aTouchWithoutWaitingOfASessionThatIsGoneAnswersMinusOne() throws Exception {
        RedisSessionStore store = new RedisSessionStore(redis);
        store.save("s2", null, state(LoggingLevel.INFO), TTL);
        store.remove("s2");

        assertThat(touched(store, "s2")).isEqualTo(-1);
        assertThat(touched(store, "never-saved")).isEqualTo(-1);
    }

    @Test
    void aTouchWithoutWaitingSendsItsScriptAgainWhenRedisForgotIt() throws Exception {
        RedisSessionStore store = new RedisSessionStore(redis);
        long revision = store.save("s3", null, state(LoggingLevel.INFO), TTL);
        assertThat(touched(store, "s3")).isEqualTo(revision);

        redis.commands().scriptFlush();

        assertThat(touched(store, "s3")).isEqualTo(revision);
    }

    @Test
    void aTouchWithoutWaitingFailsFastAsUnavailableWhileRedisIsDown() throws Exception {
        try (RedisServer own = RedisServer.start(); Redis down = Redis.connect(own.uri())) {
            RedisSessionStore store = new RedisSessionStore(down);
            long revision = store.save("s4", null, state(LoggingLevel.INFO), TTL);
            own.stop();

            long started = System.nanoTime();
            for (int i = 0; i < 5; i++) {
                var touch = store.touchAsync("s4", TTL).toCompletableFuture();
                assertThat(touch).failsWithin(Redis.DEFAULT_TIMEOUT.plusSeconds(1))
                        .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                        .withCauseInstanceOf(StoreUnavailableException.class);
            }
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Redis.DEFAULT_TIMEOUT.plusSeconds(1));

            own.startAgain();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            Long after = null;
            while (after == null && System.nanoTime() < deadline) {
                try {
                    after = touched(store, "s4");
                } catch (java.util.concurrent.ExecutionException | CompletionException stillDown) {
                    Thread.sleep(100);
                }
            }
            assertThat(after).as("Redis without persistence forgot the session once restarted").isEqualTo(-1);
            assertThat(revision).isPositive();
        }
    }
}
