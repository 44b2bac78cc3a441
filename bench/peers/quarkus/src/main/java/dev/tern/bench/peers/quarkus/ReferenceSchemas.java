package dev.tern.bench.peers.quarkus;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkiverse.mcp.server.InputSchemaGenerator;
import io.quarkiverse.mcp.server.OutputSchemaGenerator;
import io.quarkiverse.mcp.server.ToolManager.ToolInfo;
import jakarta.inject.Singleton;

import dev.tern.bench.peers.UserDirectory;

/**
 * The schemas of {@code tools.json}, the file every peer serves its tool definitions from, so that this peer lists
 * the same input and output schemas as the others (the extension's own generator leaves out
 * {@code additionalProperties} and {@code required}). Plugged in through the extension's schema generator hooks.
 */
@Singleton
public class ReferenceSchemas implements InputSchemaGenerator<JsonNode>, OutputSchemaGenerator {
    private final Map<String, JsonNode> tools = new HashMap<>();

    public ReferenceSchemas(ObjectMapper mapper) {
        try (InputStream in = ReferenceSchemas.class.getResourceAsStream("/tools.json")) {
            if (in == null) {
                throw new IllegalStateException("tools.json is missing from the application");
            }
            for (JsonNode tool : mapper.readTree(in).get("tools")) {
                tools.put(tool.get("name").asText(), tool);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public JsonNode generate(ToolInfo tool) {
        return tools.get(tool.name()).get("inputSchema");
    }

    @Override
    public Object generate(Class<?> from) {
        if (from != UserDirectory.User.class) {
            throw new IllegalArgumentException("no reference output schema for " + from);
        }
        return tools.get("get_user").get("outputSchema");
    }
}
