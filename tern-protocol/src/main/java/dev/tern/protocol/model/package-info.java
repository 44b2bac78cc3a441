/**
 * The MCP data types as records, named as in the specification's schema except where a name would clash with Tern's
 * annotations ({@link dev.tern.protocol.model.ToolDefinition} is the schema's {@code Tool}, likewise
 * {@code ResourceDefinition} and {@code PromptDefinition}). A member the schema makes optional is {@code @Nullable};
 * the others are never null.
 */
@NullMarked
package dev.tern.protocol.model;

import org.jspecify.annotations.NullMarked;
