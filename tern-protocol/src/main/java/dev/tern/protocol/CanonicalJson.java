package dev.tern.protocol;

import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.JsonNode;

import org.jspecify.annotations.Nullable;

/**
 * JSON text in which equal values read equal: every object's members sorted by name, no whitespace. Two argument
 * objects that differ only in the order of their members give the same text, so the text can key a cache.
 */
public final class CanonicalJson {
    private CanonicalJson() {
    }

    /** The canonical text of {@code value}; {@code null}, JSON null and an empty object are all {@code {}}. */
    public static String of(@Nullable JsonNode value) {
        if (value == null || value.isNull() || (value.isObject() && value.isEmpty())) {
            return "{}";
        }
        StringWriter out = new StringWriter();
        try (JsonGenerator g = Json.mapper().createGenerator(out)) {
            write(g, value);
        }
        return out.toString();
    }

    private static void write(JsonGenerator g, JsonNode node) {
        if (node.isObject()) {
            List<String> names = new ArrayList<>(node.propertyNames());
            Collections.sort(names);
            g.writeStartObject();
            for (String n : names) {
                g.writeName(n);
                write(g, node.get(n));
            }
            g.writeEndObject();
        } else if (node.isArray()) {
            g.writeStartArray();
            for (JsonNode item : node) {
                write(g, item);
            }
            g.writeEndArray();
        } else {
            g.writeTree(node);
        }
    }
}
