package dev.tern.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;

import dev.tern.protocol.Json;

import tools.jackson.databind.JsonNode;

/**
 * The official MCP JSON Schemas of each revision (a copy kept as test resources, see NOTICE.md beside them), and
 * validation of a value against one of their definitions. Thread-safe.
 */
public final class McpSchemas {
    /** Revisions with a schema here. 2024-11-05 messages are checked against 2025-03-26. */
    public static final List<String> REVISIONS = List.of("2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28");

    private static final String RESOURCES = "/dev/tern/testing/mcp-schema/";
    private static final Map<String, SchemaRegistry> REGISTRIES = new ConcurrentHashMap<>();
    private static final Map<String, Schema> SCHEMAS = new ConcurrentHashMap<>();

    private McpSchemas() {
    }

    /** The schema revision that checks messages of {@code revision}. */
    public static String schemaRevision(String revision) {
        return revision.equals("2024-11-05") ? "2025-03-26" : revision;
    }

    /** Validates {@code value} against definition {@code type} of {@code revision}; returns the violations. */
    public static List<String> validate(String revision, String type, JsonNode value) {
        String rev = schemaRevision(revision);
        Schema schema = SCHEMAS.computeIfAbsent(rev + "#" + type, k -> load(rev, type));
        List<Error> errors = schema.validate(value);
        List<String> messages = new ArrayList<>(errors.size());
        for (Error e : errors) {
            messages.add(e.getInstanceLocation() + ": " + e.getMessage());
        }
        return messages;
    }

    /** Throws an {@link AssertionError} naming every violation. */
    public static void assertValid(String revision, String type, JsonNode value) {
        List<String> errors = validate(revision, type, value);
        if (!errors.isEmpty()) {
            throw new AssertionError("Not a valid " + type + " of MCP " + revision + ": " + errors + "\n" + value);
        }
    }

    /** Reads a resource shipped with the schemas, e.g. {@code 2026-07-28/examples/index.txt}. */
    public static String resource(String path) {
        try (InputStream in = McpSchemas.class.getResourceAsStream(RESOURCES + path)) {
            if (in == null) {
                throw new IllegalArgumentException("No schema resource " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Schema load(String revision, String type) {
        String base = "https://modelcontextprotocol.io/schema/" + revision + "/schema.json";
        SchemaRegistry registry = REGISTRIES.computeIfAbsent(revision, r -> {
            String text = resource(r + "/schema.json");
            return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
                    b -> b.schemas(Map.of(base, text)));
        });
        JsonNode root = Json.mapper().readTree(resource(revision + "/schema.json"));
        String defs = root.has("$defs") ? "$defs" : "definitions";
        if (!root.path(defs).has(type)) {
            throw new IllegalArgumentException("MCP " + revision + " defines no " + type);
        }
        return registry.getSchema(SchemaLocation.of(base + "#/" + defs + "/" + type));
    }
}
