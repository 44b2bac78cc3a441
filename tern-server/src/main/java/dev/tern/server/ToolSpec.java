package dev.tern.server;

import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

import dev.tern.protocol.Json;
import dev.tern.protocol.model.Icon;
import dev.tern.protocol.model.ToolAnnotations;
import dev.tern.protocol.model.ToolDefinition;
import dev.tern.protocol.model.ToolExecution;

import tools.jackson.databind.JavaType;
import tools.jackson.databind.node.ObjectNode;

/** A tool: what {@code tools/list} shows of it and the handler that serves it. Immutable. */
public final class ToolSpec {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.\\-]{1,128}");

    private final ToolDefinition tool;
    private final ToolHandler handler;
    private final ArgumentValidator validator;
    private final boolean nonBlocking;

    private ToolSpec(ToolDefinition tool, ToolHandler handler, boolean nonBlocking) {
        this.tool = tool;
        this.handler = handler;
        this.validator = ArgumentValidator.of(tool.inputSchema());
        this.nonBlocking = nonBlocking;
    }

    public static Builder builder(String name) {
        return new Builder(name);
    }

    public String name() {
        return tool.name();
    }

    /** The tool as listed. */
    public ToolDefinition tool() {
        return tool;
    }

    public ToolHandler handler() {
        return handler;
    }

    ArgumentValidator validator() {
        return validator;
    }

    /** Whether the handler promised never to block: see {@link ToolSpec.Builder#nonBlocking(boolean)}. */
    public boolean nonBlocking() {
        return nonBlocking;
    }

    /** Builds a {@link ToolSpec}; {@link #build()} checks the name and that a handler is set. */
    public static final class Builder extends FeatureBuilder<Builder> {
        private final String name;
        private ObjectNode inputSchema;
        private ObjectNode outputSchema;
        private ToolAnnotations annotations;
        private String taskSupport;
        private ToolHandler handler;
        private java.util.function.Function<Boolean, ToolHandler> typedHandler;

        @Override
        Builder self() {
            return this;
        }

        private Builder(String name) {
            this.name = Objects.requireNonNull(name, "name");
        }

        /** The input JSON Schema (2020-12); root {@code "type": "object"}. */
        public Builder inputSchema(ObjectNode schema) {
            this.inputSchema = schema;
            return this;
        }

        /** The output JSON Schema; results then carry matching {@code structuredContent}. */
        public Builder outputSchema(ObjectNode schema) {
            this.outputSchema = schema;
            return this;
        }

        /** Generates the output schema from the type the handler returns. */
        public Builder output(Type resultType) {
            this.outputSchema = SchemaGenerator.outputSchema(resultType);
            return this;
        }

        /** Every hint at once; the hint setters below change one of them each. */
        public Builder annotations(ToolAnnotations annotations) {
            this.annotations = annotations;
            return this;
        }

        /** Says whether the tool only reads (the protocol's default when never said: false). */
        public Builder readOnly(boolean readOnly) {
            ToolAnnotations a = hints();
            return annotations(new ToolAnnotations(a.title(), readOnly, a.destructiveHint(), a.idempotentHint(),
                    a.openWorldHint()));
        }

        /** Says whether the tool may destroy or overwrite (the protocol's default when never said: true). */
        public Builder destructive(boolean destructive) {
            ToolAnnotations a = hints();
            return annotations(new ToolAnnotations(a.title(), a.readOnlyHint(), destructive, a.idempotentHint(),
                    a.openWorldHint()));
        }

        /** Says whether calling again with the same arguments has no further effect (default when never said: false). */
        public Builder idempotent(boolean idempotent) {
            ToolAnnotations a = hints();
            return annotations(new ToolAnnotations(a.title(), a.readOnlyHint(), a.destructiveHint(), idempotent,
                    a.openWorldHint()));
        }

        /** Says whether the tool reaches an open world of external entities (default when never said: true). */
        public Builder openWorld(boolean openWorld) {
            ToolAnnotations a = hints();
            return annotations(new ToolAnnotations(a.title(), a.readOnlyHint(), a.destructiveHint(), a.idempotentHint(),
                    openWorld));
        }

        private ToolAnnotations hints() {
            return annotations != null ? annotations : new ToolAnnotations(null, null, null, null, null);
        }

        /** "forbidden" (default), "optional" or "required": whether the tool may run as a task. */
        public Builder taskSupport(String taskSupport) {
            if (!List.of("forbidden", "optional", "required").contains(taskSupport)) {
                throw new IllegalArgumentException("taskSupport: " + taskSupport + " (expected: forbidden, optional or required)");
            }
            this.taskSupport = taskSupport;
            return this;
        }

        /** Serves the tool with the raw arguments object. */
        public Builder handler(ToolHandler handler) {
            this.handler = Objects.requireNonNull(handler, "handler");
            this.typedHandler = null;
            return this;
        }

        /**
         * Serves the tool with arguments bound to {@code argumentsType}, whose schema becomes the input schema
         * unless one was set.
         */
        public <A> Builder handler(Class<A> argumentsType, TypedToolHandler<A, ?> typed) {
            return handler((Type) argumentsType, typed);
        }

        <A> Builder handler(Type argumentsType, TypedToolHandler<A, ?> typed) {
            Objects.requireNonNull(typed, "typed");
            if (inputSchema == null) {
                inputSchema = SchemaGenerator.inputSchema(argumentsType);
            }
            JavaType javaType = Json.mapper().getTypeFactory().constructType(argumentsType);
            ObjectNode defaults = SchemaGenerator.defaults(inputSchema);
            this.handler = null;
            this.typedHandler = structured -> (context, arguments) -> {
                ObjectNode withDefaults = ArgumentBinder.applyDefaults(arguments, defaults);
                A bound = ArgumentBinder.bind(withDefaults, javaType);
                return ToolResults.from(typed.call(context, bound), structured);
            };
            return this;
        }

        public ToolSpec build() {
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("tool name: \"" + name
                        + "\" (expected: 1 to 128 of A-Z a-z 0-9 _ - .)");
            }
            ToolHandler serving = typedHandler != null ? typedHandler.apply(outputSchema != null) : handler;
            if (serving == null) {
                throw new IllegalStateException("tool " + name + ": no handler");
            }
            ObjectNode input = inputSchema != null ? inputSchema : SchemaGenerator.emptyObjectSchema();
            if (!"object".equals(input.path("type").asString(""))) {
                throw new IllegalArgumentException("tool " + name + ": inputSchema must have \"type\": \"object\"");
            }
            ToolExecution execution = taskSupport == null ? null : new ToolExecution(taskSupport);
            return new ToolSpec(new ToolDefinition(name, title, description, input, outputSchema,
                    annotations, icons == null ? null : new ArrayList<>(icons), execution, meta), serving, nonBlocking);
        }
    }
}
