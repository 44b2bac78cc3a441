package dev.tern.protocol.model;

import org.jspecify.annotations.Nullable;

/** @param taskSupport "forbidden" (default), "optional" or "required" */
public record ToolExecution(@Nullable String taskSupport) {
}
