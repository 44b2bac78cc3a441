package dev.tern.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;

import tools.jackson.databind.JsonNode;

/**
 * Validation against the official MCP schemas, read from the copy kept in the testing module (the build passes the
 * project root as {@code tern.root}), and against the JSON Schema 2020-12 meta-schema.
 */
final class SpecSchemas {
    private static final String SCHEMAS = "tern-testing/src/main/resources/dev/tern/testing/mcp-schema";
    private static final Map<String, Schema> CACHE = new ConcurrentHashMap<>();
    private static final Map<String, SchemaRegistry> REGISTRIES = new ConcurrentHashMap<>();
    private static final SchemaRegistry DRAFT_2020_12 = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

    private SpecSchemas() {
    }

    /** Violations of definition {@code type} of MCP {@code revision}. */
    static List<String> validate(String revision, String type, JsonNode value) {
        Schema schema = CACHE.computeIfAbsent(revision + "#" + type, k -> load(revision, type));
        List<String> messages = new ArrayList<>();
        for (Error e : schema.validate(value)) {
            messages.add(e.getInstanceLocation() + ": " + e.getMessage());
        }
        return messages;
    }

    static void assertValid(String revision, String type, JsonNode value) {
        List<String> errors = validate(revision, type, value);
        if (!errors.isEmpty()) {
            throw new AssertionError("Not a valid " + type + " of MCP " + revision + ": " + errors + "\n" + value);
        }
    }

    /** Violations of the JSON Schema 2020-12 meta-schema: is {@code schema} itself a valid schema? */
    static List<String> metaSchemaViolations(JsonNode schema) {
        Schema meta = CACHE.computeIfAbsent("meta-2020-12",
                k -> DRAFT_2020_12.getSchema(SchemaLocation.of("https://json-schema.org/draft/2020-12/schema")));
        List<String> messages = new ArrayList<>();
        for (Error e : meta.validate(schema)) {
            messages.add(e.getInstanceLocation() + ": " + e.getMessage());
        }
        return messages;
    }

    private static Schema load(String revision, String type) {
        String base = "https://modelcontextprotocol.io/schema/" + revision + "/schema.json";
        String text = read(revision);
        SchemaRegistry registry = REGISTRIES.computeIfAbsent(revision,
                r -> SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12, b -> b.schemas(Map.of(base, text))));
        return registry.getSchema(SchemaLocation.of(base + "#/$defs/" + type));
    }

    private static String read(String revision) {
        String root = System.getProperty("tern.root");
        Path base = root != null ? Path.of(root) : Path.of("").toAbsolutePath().getParent();
        try {
            return Files.readString(base.resolve(SCHEMAS).resolve(revision).resolve("schema.json"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
