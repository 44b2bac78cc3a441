package dev.tern.protocol.model;

import java.util.List;

/** An icon: a URI (https or data:), its MIME type, sizes such as "48x48" or "any", and theme "light"/"dark". */
public record Icon(String src, String mimeType, List<String> sizes, String theme) {
    public static Icon of(String src, String mimeType) {
        return new Icon(src, mimeType, null, null);
    }
}
