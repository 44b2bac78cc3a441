package dev.tern.protocol.model;

import java.util.List;

/** The name and version of a client or server. */
public record Implementation(String name, String title, String version, String description, List<Icon> icons,
        String websiteUrl) {
    public static Implementation of(String name, String version) {
        return new Implementation(name, null, version, null, null, null);
    }
}
