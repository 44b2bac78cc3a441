package dev.tern.server;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import dev.tern.protocol.Json;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.Content;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Turns what a tool method returns into a {@link CallToolResult}. A value that is neither text nor content is
 * serialized once, by {@code mapper}: the same JSON text is the text block and, as a raw node, the structured content.
 */
final class ToolResults {
    private ToolResults() {
    }

    static CallToolResult from(JsonMapper mapper, Object value, boolean structured) {
        return switch (value) {
            case null -> new CallToolResult(List.of(), null, null, null);
            case CallToolResult r -> r;
            case String s -> CallToolResult.text(s);
            case Content c -> CallToolResult.of(c);
            case Collection<?> c when !c.isEmpty() && c.stream().allMatch(Content.class::isInstance) -> {
                List<Content> content = new ArrayList<>(c.size());
                c.forEach(item -> content.add((Content) item));
                yield new CallToolResult(content, null, null, null);
            }
            default -> {
                JsonNode json = Json.rawJson(mapper.writeValueAsString(value));
                String text = Json.rawText(json);
                yield new CallToolResult(List.of(Content.text(text)), structured || Json.isRawObject(json) ? json : null, null, null);
            }
        };
    }
}
