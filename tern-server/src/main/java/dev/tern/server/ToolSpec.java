package dev.tern.server;

import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Pattern;

import dev.tern.protocol.Json;
import dev.tern.protocol.model.Icon;
import dev.tern.protocol.model.ToolAnnotations;
import dev.tern.protocol.model.ToolDefinition;
import dev.tern.protocol.model.ToolExecution;

import tools.jackson.databind.JavaType;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import org.jspecify.annotations.Nullable;

/**
 * A tool: what {@code tools/list} shows of it and the handler that serves it. Immutable. Whatever the builder generates
 * from Java types (schemas, argument binding, structured results) follows the JSON mapper of the server the tool is
 * registered with ({@link McpServer.Builder#jsonMapper}); until then, Tern's default mapper.
 */
public final class ToolSpec {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.\\-]{1,128}");

    private final ToolDefinition tool;
    private final ToolHandler handler;
    private final ArgumentValidator validator;
    private final boolean nonBlocking;
    private final CachePolicy cache;
    /** How to make this tool for another mapper; null when nothing in it depends on the mapper. */
    private final Recipe recipe;
    private final JsonMapper mapper;
    private final TaskSupport taskSupport;
    private final boolean inputBeforeTask;
    private final Set<String> scopes;

    private ToolSpec(ToolDefinition tool, ToolHandler handler, boolean nonBlocking, Recipe recipe, JsonMapper mapper,
            TaskSupport taskSupport, boolean inputBeforeTask, CachePolicy cache,
            Set<String> scopes) {
        this.cache = cache;
        this.tool = tool;
        this.handler = handler;
        this.validator = ArgumentValidator.of(tool.inputSchema());
        this.nonBlocking = nonBlocking;
        this.recipe = recipe;
        this.mapper = mapper;
        this.taskSupport = taskSupport;
        this.inputBeforeTask = inputBeforeTask;
        this.scopes = scopes;
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

    /** How long results are kept and for whom; {@code null}: not cached. See {@link FeatureBuilder#cache}. */
    public @Nullable CachePolicy cache() {
        return cache;
    }

    /** Whether the tool may run as a task: see {@link ToolSpec.Builder#taskSupport(TaskSupport)}. */
    public TaskSupport taskSupport() {
        return taskSupport;
    }

    /** Whether the handler asks before its task starts: see {@link ToolSpec.Builder#inputBeforeTask(boolean)}. */
    public boolean inputBeforeTask() {
        return inputBeforeTask;
    }

    /** The scopes a caller needs to call it: see {@link FeatureBuilder#scopes}. */
    public Set<String> scopes() {
        return scopes;
    }

    /** This tool with its schemas, binding and results made by {@code mapper}. */
    ToolSpec bind(JsonMapper mapper) {
        return recipe == null || mapper == this.mapper ? this : recipe.make(mapper);
    }

    /** Makes the handler that serves a tool, given the mapper, whether the tool has an output schema, its input schema. */
    interface Binding {
        ToolHandler bind(JsonMapper mapper, boolean structured, ObjectNode inputSchema);
    }

    /** What {@link Builder#build()} was given, kept to make the tool again for another mapper. */
    private record Recipe(String name, String title, String description, List<Icon> icons, Map<String, Object> meta,
            boolean nonBlocking, ObjectNode inputSchema, Function<JsonMapper, ObjectNode> inputSchemaOf,
            ObjectNode outputSchema, Type outputType, ToolAnnotations annotations, TaskSupport taskSupport,
            boolean inputBeforeTask, Binding binding, boolean mapperDependent, CachePolicy cache,
            Set<String> scopes) {

        ToolSpec make(JsonMapper mapper) {
            ObjectNode input = inputSchema != null ? inputSchema
                    : inputSchemaOf != null ? inputSchemaOf.apply(mapper) : SchemaGenerator.emptyObjectSchema();
            if (!"object".equals(input.path("type").asString(""))) {
                throw new IllegalArgumentException("tool " + name + ": inputSchema must have \"type\": \"object\"");
            }
            ObjectNode output = outputType != null ? SchemaGenerator.outputSchema(mapper, outputType) : outputSchema;
            ToolHandler serving = binding.bind(mapper, output != null, input);
            ToolExecution execution = taskSupport == null ? null : new ToolExecution(taskSupport.wire());
            return new ToolSpec(new ToolDefinition(name, title, description, input, output, annotations, icons,
                    execution, meta), serving, nonBlocking, mapperDependent ? this : null, mapper,
                    taskSupport == null ? TaskSupport.FORBIDDEN : taskSupport, inputBeforeTask, cache, scopes);
        }
    }

    /** Builds a {@link ToolSpec}; {@link #build()} checks the name and that a handler is set. */
    public static final class Builder extends FeatureBuilder<Builder> {
        private final String name;
        private ObjectNode inputSchema;
        private Function<JsonMapper, ObjectNode> inputSchemaOf;
        private ObjectNode outputSchema;
        private Type outputType;
        private ToolAnnotations annotations;
        private TaskSupport taskSupport;
        private boolean inputBeforeTask;
        private Binding binding;
        private boolean bindingUsesMapper;

        @Override
        Builder self() {
            return this;
        }

        private Builder(String name) {
            this.name = Objects.requireNonNull(name, "name");
        }

        /** The input JSON Schema (2020-12); root {@code "type": "object"}. */
        public Builder inputSchema(@Nullable ObjectNode schema) {
            this.inputSchema = schema;
            return this;
        }

        /** The output JSON Schema; results then carry matching {@code structuredContent}. */
        public Builder outputSchema(@Nullable ObjectNode schema) {
            this.outputSchema = schema;
            this.outputType = null;
            return this;
        }

        /** Generates the output schema from the type the handler returns. */
        public Builder output(Type resultType) {
            this.outputType = Objects.requireNonNull(resultType, "resultType");
            this.outputSchema = null;
            return this;
        }

        /** Every hint at once; the hint setters below change one of them each. */
        public Builder annotations(@Nullable ToolAnnotations annotations) {
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
            Objects.requireNonNull(handler, "handler");
            return handler(null, (mapper, structured, input) -> handler, false);
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
            return handler(mapper -> SchemaGenerator.inputSchema(mapper, argumentsType), (mapper, structured, input) -> {
                JavaType javaType = mapper.getTypeFactory().constructType(argumentsType);
                ObjectNode defaults = SchemaGenerator.defaults(input);
                return (context, arguments) -> {
                    ObjectNode withDefaults = ArgumentBinder.applyDefaults(arguments, defaults);
                    A bound = ArgumentBinder.bind(mapper, withDefaults, javaType);
                    return ToolResults.from(mapper, typed.call(context, bound), structured);
                };
            }, true);
        }

        /**
         * Serves the tool with what {@code binding} makes for the server's mapper; {@code inputSchemaOf}, when not
         * null, generates the input schema unless one was set.
         */
        Builder handler(Function<JsonMapper, ObjectNode> inputSchemaOf, Binding binding, boolean usesMapper) {
            this.inputSchemaOf = inputSchemaOf;
            this.binding = binding;
            this.bindingUsesMapper = usesMapper;
            return this;
        }

        public ToolSpec build() {
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("tool name: \"" + name
                        + "\" (expected: 1 to 128 of A-Z a-z 0-9 _ - .)");
            }
            if (binding == null) {
                throw new IllegalStateException("tool " + name + ": no handler");
            }
            if (inputBeforeTask && (nonBlocking || taskSupport == null || taskSupport == TaskSupport.FORBIDDEN)) {
                throw new IllegalStateException("tool " + name
                        + ": inputBeforeTask needs task support optional or required, and a handler that may block");
            }
            boolean mapperDependent = bindingUsesMapper || outputType != null
                    || (inputSchema == null && inputSchemaOf != null);
            return new Recipe(name, title, description, icons == null ? null : new ArrayList<>(icons), meta,
                    nonBlocking, inputSchema, inputSchemaOf, outputSchema, outputType, annotations, taskSupport, inputBeforeTask, binding,
                    mapperDependent, cache, scopes).make(Json.mapper());
        }
    }
}
