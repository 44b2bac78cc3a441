package dev.tern.protocol.model;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

import tools.jackson.databind.node.ObjectNode;

import org.jspecify.annotations.Nullable;

/** A tool as listed by {@code tools/list}. */
public record ToolDefinition(String name, @Nullable String title, @Nullable String description, ObjectNode inputSchema,
        @Nullable ObjectNode outputSchema, @Nullable ToolAnnotations annotations, @Nullable List<Icon> icons,
        @Nullable ToolExecution execution, @JsonProperty("_meta") @Nullable Map<String, Object> meta) {
}
