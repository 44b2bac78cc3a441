package dev.tern.protocol.model;

import java.util.List;

/** Hints to the client about content: who it is for, how important, when it last changed (ISO 8601). */
public record Annotations(List<Role> audience, Double priority, String lastModified) {
    public static Annotations forAudience(Role... roles) {
        return new Annotations(List.of(roles), null, null);
    }
}
