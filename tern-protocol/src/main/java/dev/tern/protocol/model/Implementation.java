package dev.tern.protocol.model;

import java.util.List;

import org.jspecify.annotations.Nullable;

/** The name and version of a client or server. */
public record Implementation(String name, @Nullable String title, String version, @Nullable String description,
        @Nullable List<Icon> icons, @Nullable String websiteUrl) {
    public static Implementation of(String name, String version) {
        return new Implementation(name, null, version, null, null, null);
    }
}
