package dev.tern.server;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;

import dev.tern.protocol.ErrorCodes;
import dev.tern.protocol.Json;
import dev.tern.protocol.McpException;
import dev.tern.protocol.McpMeta;
import dev.tern.protocol.ProtocolVersion;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.Completion;
import dev.tern.protocol.model.Content;
import dev.tern.protocol.model.GetPromptResult;
import dev.tern.protocol.model.PromptArgument;
import dev.tern.protocol.model.ReadResourceResult;
import dev.tern.protocol.model.TextContent;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** The MCP methods a server answers, per era. */
final class Methods {
    private static final System.Logger LOG = System.getLogger("dev.tern.server");

    /** Serves one method; returns the result, or {@code null} when the response comes later. */
    interface Handler {
        ObjectNode handle(Exchange exchange) throws Exception;
    }

    /** A method: its handler and whether it is cheap enough to run on the receiving thread. */
    record Method(Handler handler, boolean inline) {
        ObjectNode handle(Exchange exchange) throws Exception {
            return handler.handle(exchange);
        }
    }

    static final Method LISTEN = new Method(e -> e.server.listens().open(e), true);

    private static final Method TOOLS_LIST = inline(Methods::listTools);
    private static final Method TOOLS_CALL = worker(Methods::callTool);
    private static final Method RESOURCES_LIST = inline(Methods::listResources);
    private static final Method TEMPLATES_LIST = inline(Methods::listTemplates);
    private static final Method RESOURCES_READ = worker(Methods::readResource);
    private static final Method PROMPTS_LIST = inline(Methods::listPrompts);
    private static final Method PROMPTS_GET = worker(Methods::getPrompt);
    private static final Method COMPLETE = worker(Methods::complete);

    private static final Map<String, Method> LEGACY = Map.ofEntries(
            Map.entry("initialize", inline(e -> e.channel.initialize(e))),
            Map.entry("ping", inline(e -> Json.object())),
            Map.entry("tools/list", TOOLS_LIST),
            Map.entry("tools/call", TOOLS_CALL),
            Map.entry("resources/list", RESOURCES_LIST),
            Map.entry("resources/templates/list", TEMPLATES_LIST),
            Map.entry("resources/read", RESOURCES_READ),
            Map.entry("resources/subscribe", inline(e -> e.channel.session().subscribe(e, true))),
            Map.entry("resources/unsubscribe", inline(e -> e.channel.session().subscribe(e, false))),
            Map.entry("prompts/list", PROMPTS_LIST),
            Map.entry("prompts/get", PROMPTS_GET),
            Map.entry("completion/complete", COMPLETE),
            Map.entry("logging/setLevel", inline(e -> e.channel.session().setLogLevel(e))),
            Map.entry("tasks/get", inline(e -> e.server.tasks().get(e))),
            Map.entry("tasks/result", worker(e -> e.server.tasks().result(e))),
            Map.entry("tasks/list", inline(e -> {
                e.server.tasks().requireExtension(e);
                return e.server.tasks().list(e);
            })),
            Map.entry("tasks/cancel", inline(e -> e.server.tasks().cancel(e))));

    private static final Map<String, Method> MODERN = Map.ofEntries(
            Map.entry("server/discover", inline(Methods::discover)),
            Map.entry("tools/list", TOOLS_LIST),
            Map.entry("tools/call", TOOLS_CALL),
            Map.entry("resources/list", RESOURCES_LIST),
            Map.entry("resources/templates/list", TEMPLATES_LIST),
            Map.entry("resources/read", RESOURCES_READ),
            Map.entry("prompts/list", PROMPTS_LIST),
            Map.entry("prompts/get", PROMPTS_GET),
            Map.entry("completion/complete", COMPLETE),
            Map.entry("subscriptions/listen", LISTEN),
            Map.entry("tasks/get", inline(e -> e.server.tasks().get(e))),
            Map.entry("tasks/update", inline(e -> e.server.tasks().update(e))),
            Map.entry("tasks/cancel", inline(e -> e.server.tasks().cancel(e))));

    private static final Set<String> CACHEABLE = Set.of("server/discover", "tools/list", "resources/list",
            "resources/templates/list", "prompts/list", "resources/read");
    private static final Set<String> MULTI_ROUND_TRIP = Set.of("tools/call", "prompts/get", "resources/read");

    private Methods() {
    }

    static Method find(boolean modern, String method) {
        return (modern ? MODERN : LEGACY).get(method);
    }

    static boolean isCacheable(String method) {
        return CACHEABLE.contains(method);
    }

    /**
     * Whether {@code method} calls a tool, reads a resource or gets a prompt whose handler promised never to block
     * ({@link ToolSpec#nonBlocking()}). A resource's match is kept on the exchange for the read.
     */
    static boolean callsNonBlockingHandler(Exchange e, Method method) {
        FeatureRegistry registry = e.server.registry();
        if (method == RESOURCES_READ) {
            JsonNode uri = e.params.get("uri");
            e.resourceMatch = uri != null && uri.isString() ? registry.findResource(uri.stringValue()).orElse(null) : null;
            return e.resourceMatch != null && e.resourceMatch.nonBlocking()
                    && !e.server.results().shares(e.resourceMatch.cache());
        }
        if (method != TOOLS_CALL && method != PROMPTS_GET) {
            return false;
        }
        JsonNode name = e.params.get("name");
        if (name == null || !name.isString()) {
            return false;
        }
        if (method == TOOLS_CALL) {
            ToolSpec tool = registry.tool(name.stringValue());
            return tool != null && tool.nonBlocking() && !e.server.results().shares(e.server.cachePolicy(tool));
        }
        PromptSpec prompt = registry.prompt(name.stringValue());
        return prompt != null && prompt.nonBlocking() && !e.server.results().shares(prompt.cache());
    }

    private static Method inline(Handler h) {
        return new Method(h, true);
    }

    private static Method worker(Handler h) {
        return new Method(h, false);
    }

    // ---------------------------------------------------------------- discovery and lists

    private static ObjectNode discover(Exchange e) {
        ObjectNode result = Json.object();
        ArrayNode versions = result.putArray("supportedVersions");
        ProtocolVersion.supportedIds().forEach(versions::add);
        result.set("capabilities", e.server.capabilities(ProtocolVersion.V2026_07_28));
        String instructions = e.server.instructions();
        if (instructions != null) {
            result.put("instructions", instructions);
        }
        return result;
    }

    private static ObjectNode listTools(Exchange e) {
        boolean withExecution = e.version == ProtocolVersion.V2025_11_25;
        return list(e, permitted(e, e.server.registry().tools(), ToolSpec::scopes), "tools", t -> {
            ObjectNode tool = Json.mapper().valueToTree(t.tool());
            if (!withExecution) {
                tool.remove("execution");
            }
            return tool;
        });
    }

    private static ObjectNode listResources(Exchange e) {
        return list(e, permitted(e, e.server.registry().resources(), ResourceSpec::scopes), "resources", r -> Json.mapper().valueToTree(r.resource()));
    }

    private static ObjectNode listTemplates(Exchange e) {
        return list(e, permitted(e, e.server.registry().templates(), ResourceTemplateSpec::scopes),
                "resourceTemplates",
                t -> Json.mapper().valueToTree(t.template()));
    }

    private static ObjectNode listPrompts(Exchange e) {
        return list(e, permitted(e, e.server.registry().prompts(), PromptSpec::scopes), "prompts", p -> Json.mapper().valueToTree(p.prompt()));
    }

    /** The features the caller may use, where the server lists only those; all of them otherwise. */
    private static <T> List<T> permitted(Exchange e, List<T> all,
            java.util.function.Function<T, java.util.Set<String>> scopes) {
        Caller caller = e.server.listOnlyPermitted() ? e.caller() : null;
        return caller == null ? all : all.stream().filter(f -> Scopes.permits(caller, scopes.apply(f))).toList();
    }

    /** One page of a list result: the items under {@code field} and the next cursor, if any. */
    private static <T> ObjectNode list(Exchange e, List<T> all, String field, java.util.function.Function<T, JsonNode> render) {
        Cursors.Page<T> page = page(e, all);
        ObjectNode result = Json.object();
        ArrayNode items = result.putArray(field);
        page.items().forEach(item -> items.add(render.apply(item)));
        if (page.nextCursor() != null) {
            result.put("nextCursor", page.nextCursor());
        }
        return result;
    }

    private static <T> Cursors.Page<T> page(Exchange e, List<T> all) {
        JsonNode cursor = e.params.get("cursor");
        if (cursor != null && !cursor.isNull() && !cursor.isString()) {
            throw McpException.invalidParams("Invalid params: cursor must be a string");
        }
        return Cursors.page(all, cursor == null || cursor.isNull() ? null : cursor.stringValue(),
                e.server.config().pageSize());
    }

    // ---------------------------------------------------------------- tools

    private static ObjectNode callTool(Exchange e) throws Exception {
        String name = requireString(e.params, "name");
        JsonNode args = e.params.get("arguments");
        if (args != null && !args.isNull() && !args.isObject()) {
            throw McpException.invalidParams("Invalid params: arguments must be an object");
        }
        ObjectNode arguments = args instanceof ObjectNode o ? o : Json.object();
        ToolSpec tool = e.server.registry().tool(name);
        if (tool == null) {
            throw McpException.invalidParams("Unknown tool: " + name);
        }
        openAnswers(e);
        List<String> violations = tool.validator().validate(arguments);
        if (!violations.isEmpty()) {
            return toTree(e, CallToolResult.error("Invalid arguments for tool " + name + ": " + String.join("; ", violations)));
        }
        Tasks tasks = e.server.tasks();
        if (tasks.wantsTask(e, tool)) {
            return tasks.start(e, tool, arguments);
        }
        return invokeToolCached(e, tool, arguments);
    }

    /** Runs a tool as {@link #invokeTool} does, through the result cache when the tool is cacheable. */
    static ObjectNode invokeToolCached(Exchange e, ToolSpec tool, ObjectNode arguments) throws Exception {
        CachePolicy cache = e.server.cachePolicy(tool);
        if (cache == null) {
            return invokeTool(e, tool, arguments);
        }
        try {
            return e.server.results().serve(e, cache, ResultCache.Kind.TOOL, tool.name(), arguments,
                    () -> invokeTool(e, tool, arguments));
        } catch (CancellationException waiting) {
            // Timed out while waiting for another caller's run of the same call: answered as a run that timed out.
            if (e.timedOut || "timed out".equals(e.cancellation().reason())) {
                return toTree(e, timedOut(e, tool.name()));
            }
            throw waiting;
        }
    }

    /** Runs a tool's handler with validated arguments; failures become {@code isError} results. */
    static ObjectNode invokeTool(Exchange e, ToolSpec tool, ObjectNode arguments) {
        String name = tool.name();
        CallToolResult result;
        try {
            result = tool.handler().call(e, arguments);
        } catch (McpException | InputRequiredSignal passThrough) {
            throw passThrough;
        } catch (ToolException failure) {
            result = CallToolResult.error(failure.getMessage());
        } catch (Exception | StackOverflowError failure) {
            if (e.timedOut || "timed out".equals(e.cancellation().reason())) {
                result = timedOut(e, name);
            } else if (e.cancellation().isCancelled() || failure instanceof CancellationException
                    || failure instanceof InterruptedException) {
                throw new CancellationException(e.cancellation().reason());
            } else {
                LOG.log(Level.WARNING, "Tool " + name + " failed", failure);
                result = CallToolResult.error("Tool " + name + " failed with an internal error");
            }
        }
        if (result == null) {
            result = new CallToolResult(List.of(), null, null, null);
        }
        return toTree(e, result);
    }

    private static CallToolResult timedOut(Exchange e, String tool) {
        return CallToolResult.error("Tool " + tool + " did not finish within "
                + e.server.config().handlerTimeout() + " and was cancelled");
    }

    /**
     * The answer to a request whose deadline passed before its handler could start (a loaded machine): for a tool
     * call, the tool error any call past its deadline gets; {@code null} for other methods.
     */
    static ObjectNode expiredBeforeStart(Exchange e, Method method) {
        if (method != TOOLS_CALL) {
            return null;
        }
        JsonNode name = e.params == null ? null : e.params.get("name");
        return toTree(e, timedOut(e, name != null && name.isString() ? name.stringValue() : "?"));
    }

    private static ObjectNode toTree(Exchange e, CallToolResult result) {
        JsonNode structured = result.structuredContent();
        if (!plainText(result.content())) {
            // Placed as it is rather than copied through the mapper: the structured content is already a tree.
            ObjectNode rest = Json.mapper().valueToTree(
                    new CallToolResult(result.content(), null, result.isError(), result.meta()));
            ObjectNode tree = Json.object();
            JsonNode content = rest.remove("content");
            tree.set("content", content != null ? content : Json.mapper().createArrayNode());
            putStructured(e, tree, structured);
            tree.setAll(rest);
            return tree;
        }
        ObjectNode tree = Json.object();
        ArrayNode content = tree.putArray("content");
        for (Content c : result.content()) {
            content.addObject().put("type", "text").set("text", Json.stringNode(((TextContent) c).text(), structured));
        }
        putStructured(e, tree, structured);
        if (result.isError() != null) {
            tree.put("isError", result.isError());
        }
        if (result.meta() != null) {
            tree.set(McpMeta.KEY, Json.mapper().valueToTree(result.meta()));
        }
        return tree;
    }

    /** Whether every block is text without annotations or metadata: the common shape, built without the mapper. */
    private static boolean plainText(List<Content> content) {
        if (content == null) {
            return false;
        }
        for (Content c : content) {
            if (!(c instanceof TextContent t) || t.text() == null || t.annotations() != null || t.meta() != null) {
                return false;
            }
        }
        return true;
    }

    private static void putStructured(Exchange e, ObjectNode tree, JsonNode structured) {
        if (structured != null && (structured.isObject() || Json.isRawObject(structured) || e.modern())) {
            tree.set("structuredContent", structured);
        }
    }

    // ---------------------------------------------------------------- resources

    private static ObjectNode readResource(Exchange e) throws Exception {
        String uri = requireString(e.params, "uri");
        FeatureRegistry.Match match = e.resourceMatch != null ? e.resourceMatch
                : e.server.registry().findResource(uri).orElseThrow(() -> notFound(e, uri));
        openAnswers(e);
        if (match.cache() != null) {
            return e.server.results().serve(e, match.cache(), ResultCache.Kind.RESOURCE, uri, null,
                    () -> read(e, uri, match));
        }
        return read(e, uri, match);
    }

    private static ObjectNode read(Exchange e, String uri, FeatureRegistry.Match match) throws Exception {
        ReadResourceResult result = match.handler().read(e, uri, match.variables());
        if (result == null || result.contents() == null || result.contents().isEmpty()) {
            throw notFound(e, uri);
        }
        return Json.mapper().valueToTree(result);
    }

    private static McpException notFound(Exchange e, String uri) {
        ObjectNode data = Json.object();
        data.put("uri", uri);
        int code = e.modern() ? ErrorCodes.INVALID_PARAMS : ErrorCodes.RESOURCE_NOT_FOUND;
        return new McpException(code, "Resource not found: " + uri, data);
    }

    // ---------------------------------------------------------------- prompts

    private static ObjectNode getPrompt(Exchange e) throws Exception {
        String name = requireString(e.params, "name");
        PromptSpec prompt = e.server.registry().prompt(name);
        if (prompt == null) {
            throw McpException.invalidParams("Unknown prompt: " + name);
        }
        Map<String, String> arguments = stringMap(e.params.get("arguments"), "arguments");
        List<PromptArgument> declared = prompt.prompt().arguments() == null ? List.of() : prompt.prompt().arguments();
        List<String> missing = new ArrayList<>();
        for (PromptArgument a : declared) {
            if (Boolean.TRUE.equals(a.required()) && !arguments.containsKey(a.name())) {
                missing.add(a.name());
            }
        }
        if (!missing.isEmpty()) {
            throw McpException.invalidParams("Missing required arguments for prompt " + name + ": " + String.join(", ", missing));
        }
        openAnswers(e);
        if (prompt.cache() != null) {
            return e.server.results().serve(e, prompt.cache(), ResultCache.Kind.PROMPT, name, e.params.get("arguments"),
                    () -> Json.mapper().valueToTree(prompt.handler().get(e, arguments)));
        }
        GetPromptResult result = prompt.handler().get(e, arguments);
        return Json.mapper().valueToTree(result);
    }

    // ---------------------------------------------------------------- completion

    private static ObjectNode complete(Exchange e) throws Exception {
        JsonNode ref = e.params.get("ref");
        JsonNode argument = e.params.get("argument");
        if (ref == null || !ref.isObject() || argument == null || !argument.isObject()) {
            throw McpException.invalidParams("Invalid params: ref and argument are required objects");
        }
        String argumentName = requireString((ObjectNode) argument, "name");
        JsonNode valueNode = argument.get("value");
        String value = valueNode != null && valueNode.isString() ? valueNode.stringValue() : "";
        Map<String, String> context = stringMap(e.params.path("context").get("arguments"),
                "context.arguments");
        FeatureRegistry registry = e.server.registry();
        CompletionHandler completer;
        switch (ref.path("type").asString("")) {
            case "ref/prompt" -> {
                String name = requireString((ObjectNode) ref, "name");
                PromptSpec prompt = registry.prompt(name);
                if (prompt == null) {
                    throw McpException.invalidParams("Unknown prompt: " + name);
                }
                completer = prompt.completions().get(argumentName);
            }
            case "ref/resource" -> {
                String uri = requireString((ObjectNode) ref, "uri");
                ResourceTemplateSpec template = registry.template(uri);
                if (template == null) {
                    if (registry.resource(uri) == null) {
                        throw McpException.invalidParams("Unknown resource: " + uri);
                    }
                    completer = null;
                } else {
                    completer = template.completions().get(argumentName);
                }
            }
            default -> throw McpException.invalidParams("Invalid params: ref.type must be ref/prompt or ref/resource");
        }
        List<String> values = completer == null ? List.of() : completer.complete(value, context);
        ObjectNode result = Json.object();
        result.set("completion", Json.mapper().valueToTree(Completion.of(values == null ? List.of() : values)));
        return result;
    }

    // ---------------------------------------------------------------- helpers

    /** 2026-07-28: gathers the answers from a sealed {@code requestState} and this retry's {@code inputResponses}. */
    private static void openAnswers(Exchange e) {
        if (!e.modern() || !MULTI_ROUND_TRIP.contains(e.request.method())) {
            return;
        }
        JsonNode state = e.params.get("requestState");
        JsonNode responses = e.params.get("inputResponses");
        if (state == null && responses == null) {
            return;
        }
        ObjectNode answers = Json.object();
        if (state != null) {
            if (!state.isString()) {
                throw McpException.invalidParams("Invalid requestState: must be a string");
            }
            String binding = RequestStateSealer.binding(e.request.method(), e.params);
            answers.setAll(e.server.sealer().open(state.stringValue(), binding));
        }
        if (responses != null) {
            if (!(responses instanceof ObjectNode r)) {
                throw McpException.invalidParams("Invalid params: inputResponses must be an object");
            }
            for (Map.Entry<String, JsonNode> entry : r.properties()) {
                if (!entry.getValue().isObject()) {
                    throw McpException.invalidParams("Invalid params: inputResponses." + entry.getKey() + " must be an object");
                }
                answers.set(entry.getKey(), entry.getValue());
            }
        }
        e.answers = answers;
    }

    static String requireString(ObjectNode params, String name) {
        JsonNode v = params.get(name);
        if (v == null || !v.isString()) {
            throw McpException.invalidParams("Invalid params: " + name + " is required and must be a string");
        }
        return v.stringValue();
    }

    static Map<String, String> stringMap(JsonNode node, String what) {
        if (node == null || node.isNull()) {
            return Map.of();
        }
        if (!node.isObject()) {
            throw McpException.invalidParams("Invalid params: " + what + " must be an object");
        }
        Map<String, String> map = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            JsonNode v = e.getValue();
            if (!v.isString()) {
                throw McpException.invalidParams("Invalid params: " + what + "." + e.getKey() + " must be a string");
            }
            map.put(e.getKey(), v.stringValue());
        }
        return map;
    }
}
