package dev.tern.server;

import java.util.List;
import java.util.Map;

import dev.tern.protocol.model.Icon;

/** What every feature builder sets: a display title, a description, icons and {@code _meta}. */
abstract class FeatureBuilder<B extends FeatureBuilder<B>> {
    String title;
    String description;
    List<Icon> icons;
    Map<String, Object> meta;

    abstract B self();

    /** A human-readable name for display. */
    public B title(String title) {
        this.title = title;
        return self();
    }

    /** What it is for; models read this to decide when to use it. */
    public B description(String description) {
        this.description = description;
        return self();
    }

    public B icons(Icon... icons) {
        this.icons = List.of(icons);
        return self();
    }

    /** Extra {@code _meta} sent with the listing. */
    public B meta(Map<String, Object> meta) {
        this.meta = meta;
        return self();
    }
}
