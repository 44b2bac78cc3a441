package dev.tern.protocol.model;

import java.util.List;
import java.util.Objects;

/**
 * Several content blocks where the protocol allows one block or an array of them: the content of a sampling
 * message or of a {@link CreateMessageResult}. Written as a JSON array; not a block kind of its own, so it has
 * no {@code type} and belongs nowhere else.
 */
public record ContentList(List<Content> items) implements Content {
    public ContentList {
        items = List.copyOf(Objects.requireNonNull(items, "items"));
    }
}
