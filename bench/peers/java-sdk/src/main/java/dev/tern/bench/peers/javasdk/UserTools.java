package dev.tern.bench.peers.javasdk;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import io.modelcontextprotocol.spec.McpSchema.ToolAnnotations;

import dev.tern.bench.peers.UserDirectory;

/**
 * The two benchmark tools, as plain SDK handlers: {@code get_user {"id"}} answers the user record as structured
 * content with the same JSON in a text block, {@code echo {"text"}} answers its text. Their definitions (schemas
 * included) come from {@code tools.json}, the file every peer reads.
 */
final class UserTools {
    private final UserDirectory directory;
    private final McpJsonMapper json;
    private final Tool getUser;
    private final Tool echo;

    UserTools(UserDirectory directory, McpJsonMapper json) {
        this.directory = directory;
        this.json = json;
        Map<String, Map<String, Object>> definitions = definitions(json);
        this.getUser = tool(definitions.get("get_user"));
        this.echo = tool(definitions.get("echo"));
    }

    Tool getUserTool() {
        return getUser;
    }

    Tool echoTool() {
        return echo;
    }

    CallToolResult getUser(Map<String, Object> arguments) {
        Object id = arguments.get("id");
        UserDirectory.User user = id instanceof String s ? directory.find(s) : null;
        if (user == null) {
            return CallToolResult.builder().isError(true).addTextContent("No user with id " + id).build();
        }
        try {
            return CallToolResult.builder().structuredContent(user).addTextContent(json.writeValueAsString(user)).build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    CallToolResult echo(Map<String, Object> arguments) {
        return CallToolResult.builder().addTextContent(String.valueOf(arguments.get("text"))).build();
    }

    @SuppressWarnings("unchecked")
    private Tool tool(Map<String, Object> definition) {
        Map<String, Object> annotations = (Map<String, Object>) definition.get("annotations");
        Tool.Builder builder = Tool.builder((String) definition.get("name"), (Map<String, Object>) definition.get("inputSchema"))
                .title((String) definition.get("title"))
                .description((String) definition.get("description"))
                .annotations(ToolAnnotations.builder()
                        .readOnlyHint((Boolean) annotations.get("readOnlyHint"))
                        .idempotentHint((Boolean) annotations.get("idempotentHint"))
                        .build());
        if (definition.containsKey("outputSchema")) {
            builder.outputSchema((Map<String, Object>) definition.get("outputSchema"));
        }
        return builder.build();
    }

    private static Map<String, Map<String, Object>> definitions(McpJsonMapper json) {
        try (InputStream in = UserTools.class.getResourceAsStream("/tools.json")) {
            if (in == null) {
                throw new IllegalStateException("tools.json is missing from the jar");
            }
            Map<String, List<Map<String, Object>>> file = json.readValue(new String(in.readAllBytes(), StandardCharsets.UTF_8),
                    new TypeRef<Map<String, List<Map<String, Object>>>>() {
                    });
            Map<String, Map<String, Object>> byName = new java.util.LinkedHashMap<>();
            for (Map<String, Object> tool : file.get("tools")) {
                byName.put((String) tool.get("name"), tool);
            }
            return byName;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
