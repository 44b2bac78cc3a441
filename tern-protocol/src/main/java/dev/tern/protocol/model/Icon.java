package dev.tern.protocol.model;

import java.util.List;

import org.jspecify.annotations.Nullable;

/** An icon: a URI (https or data:), its MIME type, sizes such as "48x48" or "any", and theme "light"/"dark". */
public record Icon(String src, @Nullable String mimeType, @Nullable List<String> sizes, @Nullable String theme) {
    public static Icon of(String src, @Nullable String mimeType) {
        return new Icon(src, mimeType, null, null);
    }
}
