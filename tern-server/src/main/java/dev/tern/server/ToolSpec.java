package dev.tern.server;

import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

import dev.tern.protocol.Json;
import dev.tern.protocol.model.Icon;
import dev.tern.protocol.model.ToolAnnotations;
import dev.tern.protocol.model.ToolExecution;

import tools.jackson.databind.JavaType;
import tools.jackson.databind.node.ObjectNode;

/** A tool: what {@code tools/list} shows of it and the handler that serves it. Immutable. */
public final class ToolSpec {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.\\-]{1,128}");

    private final dev.tern.protocol.model.Tool tool;
    private final ToolHandler handler;
    private final ArgumentValidator validator;
    private final boolean nonBlocking;
    private final TaskSupport taskSupport;
    private final boolean inputBeforeTask;

    private ToolSpec(dev.tern.protocol.model.Tool tool, ToolHandler handler, boolean nonBlocking,
            TaskSupport taskSupport, boolean inputBeforeTask) {
        this.tool = tool;
        this.handler = handler;
        this.validator = ArgumentValidator.of(tool.inputSchema());
        this.nonBlocking = nonBlocking;
        this.taskSupport = taskSupport;
        this.inputBeforeTask = inputBeforeTask;
    }

    public static Builder builder(String name) {
        return new Builder(name);
    }

    public String name() {
        return tool.name();
    }

    /** The tool as listed. */
    public dev.tern.protocol.model.Tool tool() {
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

    /** Whether the tool may run as a task: see {@link ToolSpec.Builder#taskSupport(TaskSupport)}. */
    public TaskSupport taskSupport() {
        return taskSupport;
    }

    /** Whether the handler asks before its task starts: see {@link ToolSpec.Builder#inputBeforeTask(boolean)}. */
    public boolean inputBeforeTask() {
        return inputBeforeTask;
    }

    /** Builds a {@link ToolSpec}; {@link #build()} checks the name and that a handler is set. */
    public static final class Builder extends FeatureBuilder<Builder> {
        private final String name;
        private ObjectNode inputSchema;
        private ObjectNode outputSchema;
        private ToolAnnotations annotations;
        private TaskSupport taskSupport;
        private boolean inputBeforeTask;
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

        public Builder annotations(ToolAnnotations annotations) {
            this.annotations = annotations;
            return this;
        }

        /** Whether the tool may run as a task; when not set, it is {@link TaskSupport#FORBIDDEN} and not listed. */
        public Builder taskSupport(TaskSupport taskSupport) {
            this.taskSupport = Objects.requireNonNull(taskSupport, "taskSupport");
            return this;
        }

        /**
         * Lets the handler ask the client before its call becomes a task (2026-07-28 tasks extension). The call then
         * runs as an ordinary request, whose asks the client answers by retrying it ({@code input_required}), until
         * the handler calls {@link RequestContext#continueAsTask()}: the client gets the created task, and the rest
         * of the handler runs as that task. A handler that returns before that answers the call at once. Without
         * this, a call that runs as a task is one from the handler's start.
         */
        public Builder inputBeforeTask(boolean inputBeforeTask) {
            this.inputBeforeTask = inputBeforeTask;
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
            if (inputBeforeTask && (nonBlocking || taskSupport == null || taskSupport == TaskSupport.FORBIDDEN)) {
                throw new IllegalStateException("tool " + name
                        + ": inputBeforeTask needs task support optional or required, and a handler that may block");
            }
            ToolExecution execution = taskSupport == null ? null : new ToolExecution(taskSupport.wire());
            return new ToolSpec(new dev.tern.protocol.model.Tool(name, title, description, input, outputSchema,
                    annotations, icons == null ? null : new ArrayList<>(icons), execution, meta), serving, nonBlocking,
                    taskSupport == null ? TaskSupport.FORBIDDEN : taskSupport, inputBeforeTask);
        }
    }
}
