package dev.tern.protocol;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import tools.jackson.databind.JsonNode;

/**
 * The official example messages of an MCP revision, read from the schema copy kept in the testing module. The
 * build passes the project root as the {@code tern.root} system property.
 */
final class SpecExamples {
    private static final String SCHEMAS = "tern-testing/src/main/resources/dev/tern/testing/mcp-schema";

    /** One example: its type (the folder name), its file path below the revision, and its parsed JSON. */
    record Example(String type, String path, byte[] bytes, JsonNode json) {
        @Override
        public String toString() {
            return path;
        }
    }

    private SpecExamples() {
    }

    static Path schemaRoot() {
        String root = System.getProperty("tern.root");
        Path base = root != null ? Path.of(root) : Path.of("").toAbsolutePath().getParent();
        Path dir = base.resolve(SCHEMAS);
        if (!Files.isDirectory(dir)) {
            throw new IllegalStateException("MCP schema copy not found at " + dir + " (set -Dtern.root to the project root)");
        }
        return dir;
    }

    static List<Example> all(String revision) {
        Path dir = schemaRoot();
        try {
            List<String> index = Files.readAllLines(dir.resolve(revision + "/examples/index.txt"), StandardCharsets.UTF_8);
            return index.stream().map(String::strip).filter(l -> !l.isEmpty()).map(line -> {
                try {
                    byte[] bytes = Files.readAllBytes(dir.resolve(line));
                    String rel = line.substring((revision + "/examples/").length());
                    String type = rel.substring(0, rel.indexOf('/'));
                    return new Example(type, rel, bytes, Json.mapper().readTree(bytes));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Normalises number representations (int vs long, float vs double) so trees compare by value. */
    static JsonNode normalized(JsonNode node) {
        return Json.mapper().readTree(Json.mapper().writeValueAsString(node));
    }
}
