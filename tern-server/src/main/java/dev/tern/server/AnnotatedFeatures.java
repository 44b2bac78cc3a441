package dev.tern.server;

import java.lang.reflect.Executable;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import dev.tern.protocol.Json;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.Content;
import dev.tern.protocol.model.GetPromptResult;
import dev.tern.protocol.model.PromptMessage;
import dev.tern.protocol.model.ReadResourceResult;
import dev.tern.protocol.model.ResourceContents;

import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** Turns the annotated methods of a service object into tool, resource, template and prompt specs. */
final class AnnotatedFeatures {
    private final List<ToolSpec> tools = new ArrayList<>();
    private final List<ResourceSpec> resources = new ArrayList<>();
    private final List<ResourceTemplateSpec> templates = new ArrayList<>();
    private final List<PromptSpec> prompts = new ArrayList<>();

    private AnnotatedFeatures() {
    }

    static AnnotatedFeatures scan(Object service) {
        AnnotatedFeatures features = new AnnotatedFeatures();
        List<Method> methods = new ArrayList<>();
        for (Class<?> c = service.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (!m.isSynthetic() && !Modifier.isStatic(m.getModifiers())) {
                    methods.add(m);
                }
            }
        }
        methods.sort(java.util.Comparator.comparing(Method::getName));
        Map<String, Map<String, CompletionHandler>> promptCompleters = new HashMap<>();
        Map<String, Map<String, CompletionHandler>> resourceCompleters = new HashMap<>();
        for (Method m : methods) {
            Complete c = m.getAnnotation(Complete.class);
            if (c != null) {
                m.setAccessible(true);
                CompletionHandler completer = completer(service, m);
                if (!c.prompt().isEmpty()) {
                    promptCompleters.computeIfAbsent(c.prompt(), k -> new HashMap<>()).put(c.argument(), completer);
                } else if (!c.resource().isEmpty()) {
                    resourceCompleters.computeIfAbsent(c.resource(), k -> new HashMap<>()).put(c.argument(), completer);
                } else {
                    throw new IllegalArgumentException(m + ": @Complete needs prompt or resource");
                }
            }
        }
        for (Method m : methods) {
            if (m.isAnnotationPresent(Tool.class)) {
                m.setAccessible(true);
                features.tools.add(tool(service, m));
            }
            if (m.isAnnotationPresent(Resource.class)) {
                m.setAccessible(true);
                features.resource(service, m, resourceCompleters);
            }
            if (m.isAnnotationPresent(Prompt.class)) {
                m.setAccessible(true);
                features.prompts.add(prompt(service, m, promptCompleters));
            }
        }
        return features;
    }

    void registerInto(FeatureRegistry registry) {
        tools.forEach(registry::add);
        resources.forEach(registry::add);
        templates.forEach(registry::add);
        prompts.forEach(registry::add);
    }

    // ---------------------------------------------------------------- tools

    private static ToolSpec tool(Object service, Method m) {
        Tool a = m.getAnnotation(Tool.class);
        String name = a.name().isEmpty() ? m.getName() : a.name();
        ToolSpec.Builder b = ToolSpec.builder(name);
        if (!a.title().isEmpty()) {
            b.title(a.title());
        }
        if (!a.description().isEmpty()) {
            b.description(a.description());
        }
        if (a.readOnly() != Hint.UNSET) {
            b.readOnly(a.readOnly() == Hint.TRUE);
        }
        if (a.destructive() != Hint.UNSET) {
            b.destructive(a.destructive() == Hint.TRUE);
        }
        if (a.idempotent() != Hint.UNSET) {
            b.idempotent(a.idempotent() == Hint.TRUE);
        }
        if (a.openWorld() != Hint.UNSET) {
            b.openWorld(a.openWorld() == Hint.TRUE);
        }
        b.nonBlocking(a.nonBlocking()).cache(CachePolicy.of(a.cache(), "tool " + name)).scopes(a.scopes());
        if (a.taskSupport() != TaskSupport.FORBIDDEN) {
            b.taskSupport(a.taskSupport());
        }
        Type returnType = m.getGenericReturnType();
        boolean structured = isStructured(returnType);
        if (structured) {
            b.output(returnType);
        }
        List<Parameter> inputs = new ArrayList<>();
        for (Parameter p : m.getParameters()) {
            if (p.getType() != RequestContext.class) {
                inputs.add(p);
            }
        }
        if (inputs.size() == 1 && inputs.get(0).getType().isRecord() && !inputs.get(0).isAnnotationPresent(Arg.class)) {
            MethodCall call = new MethodCall(service, m, false);
            return b.handler(inputs.get(0).getParameterizedType(),
                    (RequestContext ctx, Object args) -> call.invoke(ctx, (i, argument) -> args)).build();
        }
        List<SchemaGenerator.Property> properties = new ArrayList<>();
        for (Parameter p : inputs) {
            properties.add(property(p));
        }
        MethodCall call = new MethodCall(service, m, true);
        Type[] declared = m.getGenericParameterTypes();
        return b.handler(mapper -> SchemaGenerator.objectSchema(mapper, properties), (mapper, structuredOut, schema) -> {
            ObjectNode defaults = SchemaGenerator.defaults(schema);
            JavaType[] types = new JavaType[declared.length];
            for (int i = 0; i < types.length; i++) {
                types[i] = call.types[i] == RequestContext.class ? null
                        : mapper.getTypeFactory().constructType(declared[i]);
            }
            return (ctx, arguments) -> {
                ObjectNode args = ArgumentBinder.applyDefaults(arguments, defaults);
                return ToolResults.from(mapper, call.invoke(ctx, (i, argument) -> {
                    JsonNode node = args.get(argument);
                    return node == null || node.isNull() ? absent(call.types[i])
                            : ArgumentBinder.bind(mapper, node, types[i]);
                }), structuredOut);
            };
        }, true).build();
    }

    private static boolean isStructured(Type type) {
        Class<?> raw = SchemaGenerator.raw(type);
        if (raw == void.class || raw == Void.class || raw == String.class || raw == Object.class
                || CallToolResult.class.isAssignableFrom(raw) || Content.class.isAssignableFrom(raw)
                || Collection.class.isAssignableFrom(raw) || JsonNode.class.isAssignableFrom(raw)) {
            return false;
        }
        return raw.isRecord() || Map.class.isAssignableFrom(raw);
    }

    private static SchemaGenerator.Property property(Parameter p) {
        Arg arg = p.getAnnotation(Arg.class);
        String name = argumentName(p);
        String description = arg == null ? null : arg.description();
        boolean required = arg == null || arg.required();
        String defaultValue = arg == null || arg.defaultValue().isEmpty() ? null : arg.defaultValue();
        return new SchemaGenerator.Property(name, p.getParameterizedType(), description, required, defaultValue);
    }

    private static Object absent(Class<?> type) {
        if (type == Optional.class) {
            return Optional.empty();
        }
        if (type.isPrimitive()) {
            return Json.mapper().convertValue(type == boolean.class ? Boolean.FALSE : 0, type);
        }
        return null;
    }

    // ---------------------------------------------------------------- resources

    private void resource(Object service, Method m, Map<String, Map<String, CompletionHandler>> completers) {
        Resource a = m.getAnnotation(Resource.class);
        String name = a.name().isEmpty() ? m.getName() : a.name();
        String mimeType = a.mimeType().isEmpty() ? null : a.mimeType();
        MethodCall call = new MethodCall(service, m, true);
        Function<JsonMapper, ResourceHandler> handler = mapper -> (ctx, uri, variables) -> readResult(mapper, uri,
                mimeType, call.invoke(ctx, (i, key) -> call.types[i] != String.class ? null
                        : variables.containsKey(key) ? variables.get(key) : key.equals("uri") ? uri : null));
        if (UriTemplate.isTemplate(a.uri())) {
            ResourceTemplateSpec.Builder b = ResourceTemplateSpec.builder(a.uri(), name).handlerFor(handler)
                    .nonBlocking(a.nonBlocking()).cache(CachePolicy.of(a.cache(), "resource " + a.uri())).scopes(a.scopes());
            if (!a.title().isEmpty()) {
                b.title(a.title());
            }
            if (!a.description().isEmpty()) {
                b.description(a.description());
            }
            if (mimeType != null) {
                b.mimeType(mimeType);
            }
            completers.getOrDefault(a.uri(), Map.of()).forEach(b::complete);
            templates.add(b.build());
        } else {
            ResourceSpec.Builder b = ResourceSpec.builder(a.uri(), name).handlerFor(handler).nonBlocking(a.nonBlocking())
                    .cache(CachePolicy.of(a.cache(), "resource " + a.uri())).scopes(a.scopes());
            if (!a.title().isEmpty()) {
                b.title(a.title());
            }
            if (!a.description().isEmpty()) {
                b.description(a.description());
            }
            if (mimeType != null) {
                b.mimeType(mimeType);
            }
            resources.add(b.build());
        }
    }

    private static ReadResourceResult readResult(JsonMapper mapper, String uri, String mimeType, Object value) {
        return switch (value) {
            case null -> null;
            case ReadResourceResult r -> r;
            case ResourceContents c -> ReadResourceResult.of(c);
            case String s -> ReadResourceResult.of(ResourceContents.text(uri, mimeType == null ? "text/plain" : mimeType, s));
            case byte[] bytes -> ReadResourceResult.of(ResourceContents.blob(uri,
                    mimeType == null ? "application/octet-stream" : mimeType, Base64.getEncoder().encodeToString(bytes)));
            default -> ReadResourceResult.of(ResourceContents.text(uri, mimeType == null ? "application/json" : mimeType,
                    mapper.writeValueAsString(value)));
        };
    }

    // ---------------------------------------------------------------- prompts

    private static PromptSpec prompt(Object service, Method m, Map<String, Map<String, CompletionHandler>> completers) {
        Prompt a = m.getAnnotation(Prompt.class);
        String name = a.name().isEmpty() ? m.getName() : a.name();
        PromptSpec.Builder b = PromptSpec.builder(name).nonBlocking(a.nonBlocking())
                .cache(CachePolicy.of(a.cache(), "prompt " + name)).scopes(a.scopes());
        if (!a.title().isEmpty()) {
            b.title(a.title());
        }
        if (!a.description().isEmpty()) {
            b.description(a.description());
        }
        for (Parameter p : m.getParameters()) {
            if (p.getType() == RequestContext.class) {
                continue;
            }
            if (p.getType() != String.class) {
                throw new IllegalArgumentException(m + ": prompt arguments must be strings, " + p.getName() + " is not");
            }
            SchemaGenerator.Property property = property(p);
            b.argument(property.name(), property.description() == null || property.description().isEmpty()
                    ? null : property.description(), property.required());
        }
        completers.getOrDefault(name, Map.of()).forEach(b::complete);
        MethodCall call = new MethodCall(service, m, true);
        return b.handler((ctx, arguments) -> {
            Object result = call.invoke(ctx, (i, argument) -> arguments.get(argument));
            return switch (result) {
                case null -> GetPromptResult.of(null);
                case GetPromptResult r -> r;
                case String s -> GetPromptResult.of(null, PromptMessage.user(Content.text(s)));
                case List<?> list -> new GetPromptResult(null, list.stream().map(PromptMessage.class::cast).toList(), null);
                default -> throw new IllegalStateException(m + " returned " + result.getClass().getName());
            };
        }).build();
    }

    // ---------------------------------------------------------------- completion

    @SuppressWarnings("unchecked")
    private static CompletionHandler completer(Object service, Method m) {
        Class<?>[] types = m.getParameterTypes();
        boolean withContext = types.length == 2 && Map.class.isAssignableFrom(types[1]);
        if (types.length == 0 || types[0] != String.class || (types.length == 2 && !withContext) || types.length > 2) {
            throw new IllegalArgumentException(m + ": @Complete methods take (String value[, Map<String, String> context])");
        }
        return (value, context) -> {
            Object result = call(service, m, withContext ? new Object[] {value, context} : new Object[] {value});
            return result == null ? List.of() : List.copyOf((Collection<String>) result);
        };
    }

    // ---------------------------------------------------------------- invocation

    /**
     * The name a feature method's parameter goes by among a call's arguments: its {@link Arg#name()}, else its name
     * in the source, which only a class compiled with {@code -parameters} keeps (without it every name reads
     * {@code arg0}, {@code arg1}..., which would silently become the schema's property names).
     */
    private static String argumentName(Parameter p) {
        Arg arg = p.getAnnotation(Arg.class);
        if (arg != null && !arg.name().isEmpty()) {
            return arg.name();
        }
        if (!p.isNamePresent()) {
            Executable m = p.getDeclaringExecutable();
            throw new IllegalArgumentException(m.getDeclaringClass().getName() + "." + m.getName() + ": the name of "
                    + "parameter " + p.getName() + " (" + p.getType().getSimpleName() + ") is not in the class file. "
                    + "Compile with -parameters (javac -parameters; Maven: <parameters>true</parameters> in the "
                    + "maven-compiler-plugin's configuration; Gradle: options.compilerArgs << '-parameters') or name it "
                    + "with @Arg(name = \"...\")");
        }
        return p.getName();
    }

    /**
     * A feature method and how its parameters are filled for a call, worked out once when the feature is registered:
     * a {@link RequestContext} parameter gets the call's context, any other the value the feature finds for its
     * argument name.
     */
    private static final class MethodCall {
        /** The value of parameter {@code index}, the argument named {@code name}. */
        interface Arguments {
            Object value(int index, String name);
        }

        final Class<?>[] types;
        private final Object service;
        private final Method method;
        /** Each parameter's argument name; null for the request context. */
        private final String[] names;

        /** {@code named}: whether parameters are looked up by name (not for a tool taking one record of arguments). */
        MethodCall(Object service, Method method, boolean named) {
            this.service = service;
            this.method = method;
            Parameter[] params = method.getParameters();
            types = new Class<?>[params.length];
            names = new String[params.length];
            for (int i = 0; i < params.length; i++) {
                types[i] = params[i].getType();
                names[i] = types[i] == RequestContext.class ? null : named ? argumentName(params[i]) : params[i].getName();
            }
        }

        Object invoke(RequestContext ctx, Arguments arguments) throws Exception {
            Object[] values = new Object[names.length];
            for (int i = 0; i < names.length; i++) {
                values[i] = names[i] == null ? ctx : arguments.value(i, names[i]);
            }
            return call(service, method, values);
        }
    }

    private static Object call(Object service, Method m, Object[] args) throws Exception {
        try {
            return m.invoke(service, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception ex) {
                throw ex;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }
}
