package dev.tern.server;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * How long the results of a tool, resource or prompt stay fresh and who may share them. The server keeps successful
 * results for {@code ttl}, keyed by the arguments (and the principal when {@link CacheScope#PRIVATE}), serves them
 * without running the handler, and tells 2026-07-28 clients the same in {@code ttlMs} and {@code cacheScope}. Error
 * results are never kept.
 */
public record CachePolicy(Duration ttl, CacheScope scope) {
    private static final Pattern SHORT = Pattern.compile("(\\d+)(ms|s|m|h|d)");

    public CachePolicy {
        Objects.requireNonNull(ttl, "ttl");
        Objects.requireNonNull(scope, "scope");
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("cache ttl: " + ttl + " (expected: > 0)");
        }
    }

    /** The policy an {@link Cache} attribute declares, or {@code null} when its ttl is empty. */
    static @Nullable CachePolicy of(Cache cache, String feature) {
        if (cache.ttl().isBlank()) {
            return null;
        }
        return new CachePolicy(parseTtl(cache.ttl(), feature), cache.scope());
    }

    static Duration parseTtl(String text, String feature) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        Matcher m = SHORT.matcher(t);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        }
        try {
            return Duration.parse(text.strip());
        } catch (java.time.format.DateTimeParseException e) {
            throw new IllegalArgumentException(feature + ": cache ttl \"" + text
                    + "\" (expected: a number with ms, s, m, h or d, or an ISO-8601 duration)");
        }
    }
}
