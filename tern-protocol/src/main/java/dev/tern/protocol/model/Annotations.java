package dev.tern.protocol.model;

import java.util.List;

import org.jspecify.annotations.Nullable;

/** Hints to the client about content: who it is for, how important, when it last changed (ISO 8601). */
public record Annotations(@Nullable List<Role> audience, @Nullable Double priority, @Nullable String lastModified) {
    public static Annotations forAudience(Role... roles) {
        return new Annotations(List.of(roles), null, null);
    }
}
