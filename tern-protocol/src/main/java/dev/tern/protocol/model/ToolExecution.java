package dev.tern.protocol.model;

/** @param taskSupport "forbidden" (default), "optional" or "required" */
public record ToolExecution(String taskSupport) {
}
