package dev.tern.protocol.model;

import java.util.List;

import org.jspecify.annotations.Nullable;

/** Completion values, at most 100; {@code total} and {@code hasMore} tell whether there are more. */
public record Completion(List<String> values, @Nullable Integer total, @Nullable Boolean hasMore) {
    public static final int MAX_VALUES = 100;

    /** Takes the first 100 of {@code all} and says how many there were. */
    public static Completion of(List<String> all) {
        if (all.size() <= MAX_VALUES) {
            return new Completion(List.copyOf(all), all.size(), false);
        }
        return new Completion(List.copyOf(all.subList(0, MAX_VALUES)), all.size(), true);
    }
}
