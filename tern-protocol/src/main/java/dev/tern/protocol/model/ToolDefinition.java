package dev.tern.protocol.model;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

import tools.jackson.databind.node.ObjectNode;

/** A tool as listed by {@code tools/list}. */
public record ToolDefinition(String name, String title, String description, ObjectNode inputSchema, ObjectNode outputSchema,
        ToolAnnotations annotations, List<Icon> icons, ToolExecution execution,
        @JsonProperty("_meta") Map<String, Object> meta) {
}
