package dev.tern.protocol.model;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

import org.jspecify.annotations.Nullable;

/** The contents of a resource: text or base64 blob. */
@JsonTypeInfo(use = JsonTypeInfo.Id.DEDUCTION)
@JsonSubTypes({
        @JsonSubTypes.Type(TextResourceContents.class),
        @JsonSubTypes.Type(BlobResourceContents.class)
})
public sealed interface ResourceContents permits TextResourceContents, BlobResourceContents {
    String uri();

    @Nullable String mimeType();

    static TextResourceContents text(String uri, @Nullable String mimeType, String text) {
        return new TextResourceContents(uri, mimeType, text, null);
    }

    static BlobResourceContents blob(String uri, @Nullable String mimeType, String base64) {
        return new BlobResourceContents(uri, mimeType, base64, null);
    }
}
