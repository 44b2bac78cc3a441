package dev.tern.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

/** {@code tern serve --cache-l2}: the result cache's second level in Redis. */
class CacheSecondLevelOptionTest {
    private static final String SECRET = "a-secret-of-at-least-thirty-two-bytes-0123456789";

    @Test
    void theSecondLevelCacheNeedsRedis() {
        assertThat(Main.run(Map.of(), new String[] {"serve", "--port", "0", "--cache-l2"}))
                .as("--cache-l2 without --redis").isEqualTo(2);
        assertThat(Main.run(Map.of("TERN_SECRET", SECRET),
                new String[] {"serve", "--port", "0", "--redis", "redis://127.0.0.1:1", "--cache-l2"}))
                .as("Redis cannot be reached").isEqualTo(1);
    }
}
