package dev.tern.examples;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

import dev.tern.protocol.ErrorCodes;
import dev.tern.protocol.Json;
import dev.tern.protocol.McpException;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.Content;
import dev.tern.protocol.model.CreateMessageResult;
import dev.tern.protocol.model.ElicitResult;
import dev.tern.protocol.model.GetPromptResult;
import dev.tern.protocol.model.LoggingLevel;
import dev.tern.protocol.model.PromptMessage;
import dev.tern.protocol.model.ReadResourceResult;
import dev.tern.protocol.model.ResourceContents;
import dev.tern.protocol.model.Root;
import dev.tern.protocol.model.TextContent;
import dev.tern.server.Arg;
import dev.tern.server.InputAnswers;
import dev.tern.server.InputRequest;
import dev.tern.server.McpServer;
import dev.tern.server.PromptSpec;
import dev.tern.server.RequestContext;
import dev.tern.server.ResourceSpec;
import dev.tern.server.ResourceTemplateSpec;
import dev.tern.server.TaskSupport;
import dev.tern.server.ToolException;
import dev.tern.server.ToolSpec;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The fixture server the official MCP conformance suite ({@code @modelcontextprotocol/conformance}) expects: the
 * {@code test_*} tools, the {@code test://} resources and template, the {@code test_*} prompts and a completer, for
 * both protocol eras. Elicitation, sampling and roots go through {@link RequestContext}, so a legacy session gets
 * server-to-client requests and a 2026-07-28 client gets {@code input_required} results, under the keys the suite
 * names. The task fixtures ({@code greet}, {@code slow_compute}, {@code failing_job}, {@code protocol_error_job},
 * {@code confirm_delete}, {@code multi_input}, {@code test_tool_with_task}) run as 2025-11-25 experimental tasks and
 * as tasks of the 2026-07-28 tasks extension. {@code tools/list} starts with {@code test_simple_text}, which takes no
 * arguments.
 */
public final class ConformanceServer {
    static final String SIMPLE_TEXT = "This is a simple text response for testing.";
    static final String ERROR_TEXT = "This tool intentionally returns an error for testing";
    static final String STATIC_TEXT = "This is the content of the static text resource.";
    static final String EMBEDDED_RESOURCE_URI = "test://embedded-resource";
    static final String MIXED_RESOURCE_URI = "test://mixed-content-resource";
    static final String DYNAMIC_TOOL = "test_dynamic_tool";
    static final String DYNAMIC_PROMPT = "test_dynamic_prompt";

    /** An 8x8 RGB PNG, generated so that it is a valid image. */
    static final byte[] PNG = png(8, 8);
    static final String PNG_BASE64 = Base64.getEncoder().encodeToString(PNG);
    /** 50 ms of a 440 Hz tone as 8 kHz 16-bit mono PCM in a RIFF/WAVE container. */
    static final byte[] WAV = wav(8_000, 400, 440);
    static final String WAV_BASE64 = Base64.getEncoder().encodeToString(WAV);

    /** The tools, in {@code tools/list} order (before any {@code test_trigger_tool_change}). */
    static final List<String> TOOLS = List.of("test_simple_text", "test_image_content", "test_audio_content",
            "test_embedded_resource", "test_multiple_content_types", "test_tool_with_logging", "test_error_handling",
            "test_tool_with_progress", "test_sampling", "test_elicitation", "test_elicitation_sep1034_defaults",
            "test_elicitation_sep1330_enums", "json_schema_2020_12_tool", "test_reconnection", "test_header_param",
            "test_missing_capability", "test_streaming_elicitation", "test_logging_tool", "test_trigger_tool_change",
            "test_trigger_prompt_change", "test_input_required_result_elicitation",
            "test_input_required_result_sampling", "test_input_required_result_list_roots",
            "test_input_required_result_request_state", "test_input_required_result_multiple_inputs",
            "test_input_required_result_multi_round", "test_input_required_result_tampered_state",
            "test_input_required_result_capabilities", "greet", "slow_compute", "failing_job", "protocol_error_job",
            "confirm_delete", "multi_input", "test_tool_with_task");

    /** The tools that run as tasks: task support "required", except {@code slow_compute} (see below). */
    static final List<String> TASK_TOOLS = List.of("slow_compute", "failing_job", "protocol_error_job", "confirm_delete",
            "multi_input", "test_tool_with_task");

    /**
     * How {@code slow_compute} runs as a task. The suite wants it to be a task whenever the client declares the tasks
     * extension and to run synchronously otherwise, which is what "optional" does in 2026-07-28.
     */
    static final TaskSupport SLOW_COMPUTE_TASK_SUPPORT = TaskSupport.OPTIONAL;
    static final Duration FAILING_JOB_DELAY = Duration.ofSeconds(1);
    static final String FAILING_JOB_TEXT = "failing_job failed: the job reported an error";
    static final String PROTOCOL_ERROR_TEXT = "protocol_error_job failed with a protocol error";

    /** The prompts, in {@code prompts/list} order. */
    static final List<String> PROMPTS = List.of("test_simple_prompt", "test_prompt_with_arguments",
            "test_prompt_with_embedded_resource", "test_prompt_with_image", "test_input_required_result_prompt");

    /** The static resources and their MIME types. */
    static final Map<String, String> RESOURCES = Map.of("test://static-text", "text/plain",
            "test://static-binary", "image/png", "test://watched-resource", "text/plain");

    private static final List<String> ARGUMENT_SUGGESTIONS = List.of("testValue1", "testValue2", "testValue3", "otherValue");
    private static final List<String> TEMPLATE_IDS = List.of("123", "456", "789");

    private final AtomicReference<McpServer> server = new AtomicReference<>();
    private final AtomicInteger toolChanges = new AtomicInteger();
    private final AtomicInteger promptChanges = new AtomicInteger();

    private ConformanceServer() {
    }

    public static McpServer create() {
        return create(java.util.function.UnaryOperator.identity());
    }

    static McpServer create(java.util.function.UnaryOperator<McpServer.Builder> settings) {
        return new ConformanceServer().build(settings);
    }

    private McpServer build(java.util.function.UnaryOperator<McpServer.Builder> settings) {
        McpServer.Builder b = settings.apply(McpServer.builder())
                .info("tern-conformance", "0.1.0")
                .instructions("Fixture server for the MCP conformance suite: test_* tools, test:// resources and "
                        + "test_* prompts.");
        // The first tool takes no arguments: header probes call tools[0] with {}.
        contentTools(b);
        utilityTools(b);
        clientFeatureTools(b);
        statelessDiagnosticTools(b);
        inputRequiredTools(b);
        taskTools(b);
        resources(b);
        prompts(b);
        McpServer built = b.build();
        server.set(built);
        return built;
    }

    // ---------------------------------------------------------------- content tools

    private static void contentTools(McpServer.Builder b) {
        b.tool(ToolSpec.builder("test_simple_text")
                .description("Tests simple text content response")
                .handler((ctx, args) -> CallToolResult.text(SIMPLE_TEXT))
                .build());
        b.tool(ToolSpec.builder("test_image_content")
                .description("Tests image content response")
                .handler((ctx, args) -> CallToolResult.of(Content.image(PNG_BASE64, "image/png")))
                .build());
        b.tool(ToolSpec.builder("test_audio_content")
                .description("Tests audio content response")
                .handler((ctx, args) -> CallToolResult.of(Content.audio(WAV_BASE64, "audio/wav")))
                .build());
        b.tool(ToolSpec.builder("test_embedded_resource")
                .description("Tests embedded resource content response")
                .handler((ctx, args) -> CallToolResult.of(Content.resource(ResourceContents.text(EMBEDDED_RESOURCE_URI,
                        "text/plain", "This is an embedded resource content."))))
                .build());
        b.tool(ToolSpec.builder("test_multiple_content_types")
                .description("Tests response with multiple content types (text, image, resource)")
                .handler((ctx, args) -> CallToolResult.of(
                        Content.text("Multiple content types test:"),
                        Content.image(PNG_BASE64, "image/png"),
                        Content.resource(ResourceContents.text(MIXED_RESOURCE_URI, "application/json",
                                "{\"test\":\"data\",\"value\":123}"))))
                .build());
    }

    // ---------------------------------------------------------------- logging, errors, progress

    private static void utilityTools(McpServer.Builder b) {
        b.tool(ToolSpec.builder("test_tool_with_logging")
                .description("Tests tool that emits log messages during execution")
                .handler((ctx, args) -> {
                    logThree(ctx);
                    return CallToolResult.text("Tool with logging executed successfully");
                })
                .build());
        b.tool(ToolSpec.builder("test_error_handling")
                .description("Tests error response handling")
                .handler((ctx, args) -> {
                    throw new ToolException(ERROR_TEXT);
                })
                .build());
        b.tool(ToolSpec.builder("test_tool_with_progress")
                .description("Tests tool that reports progress notifications")
                .handler((ctx, args) -> {
                    ctx.progress(0, 100.0, "Starting");
                    Thread.sleep(50);
                    ctx.progress(50, 100.0, "Halfway");
                    Thread.sleep(50);
                    ctx.progress(100, 100.0, "Done");
                    return CallToolResult.text("Tool with progress executed successfully");
                })
                .build());
    }

    private static void logThree(RequestContext ctx) throws InterruptedException {
        ctx.log(LoggingLevel.INFO, "conformance", "Tool execution started");
        Thread.sleep(50);
        ctx.log(LoggingLevel.INFO, "conformance", "Tool processing data");
        Thread.sleep(50);
        ctx.log(LoggingLevel.INFO, "conformance", "Tool execution completed");
    }

    // ---------------------------------------------------------------- sampling, elicitation, schemas

    /** Arguments of {@code test_sampling}. */
    public record SamplingArgs(@Arg(description = "The prompt to send to the LLM") String prompt) {
    }

    /** Arguments of {@code test_elicitation}. */
    public record ElicitationArgs(@Arg(description = "The message to show the user") String message) {
    }

    /** Arguments of {@code test_header_param}; {@code region} is mirrored into the {@code Mcp-Param-Region} header. */
    public record HeaderArgs(String region) {
    }

    private static void clientFeatureTools(McpServer.Builder b) {
        b.tool(ToolSpec.builder("test_sampling")
                .description("Tests server-initiated sampling (LLM completion request)")
                .handler(SamplingArgs.class, (ctx, args) -> {
                    CreateMessageResult answer = ctx.sample(samplingParams(args.prompt(), 100));
                    return CallToolResult.text("LLM response: " + text(answer));
                })
                .build());
        b.tool(ToolSpec.builder("test_elicitation")
                .description("Tests server-initiated elicitation (user input request)")
                .handler(ElicitationArgs.class, (ctx, args) -> {
                    ObjectNode schema = objectSchema();
                    ObjectNode props = (ObjectNode) schema.get("properties");
                    props.putObject("username").put("type", "string").put("description", "Your username");
                    props.putObject("email").put("type", "string").put("format", "email")
                            .put("description", "Your email address");
                    schema.putArray("required").add("username").add("email");
                    return CallToolResult.text("User response: " + describe(ctx.elicit(args.message(), schema)));
                })
                .build());
        b.tool(ToolSpec.builder("test_elicitation_sep1034_defaults")
                .description("Tests elicitation with default values for every primitive type (SEP-1034)")
                .handler((ctx, args) -> CallToolResult.text("Elicitation completed: "
                        + describe(ctx.elicit("Please review and update the form fields with defaults", sep1034Schema()))))
                .build());
        b.tool(ToolSpec.builder("test_elicitation_sep1330_enums")
                .description("Tests elicitation with every enum schema variant (SEP-1330)")
                .handler((ctx, args) -> CallToolResult.text("Elicitation completed: "
                        + describe(ctx.elicit("Please select options from the enum fields", sep1330Schema()))))
                .build());
        b.tool(ToolSpec.builder("json_schema_2020_12_tool")
                .description("Tool with JSON Schema 2020-12 features")
                .inputSchema(jsonSchema202012())
                .handler((ctx, args) -> CallToolResult.text("Received: " + Json.mapper().writeValueAsString(args)))
                .build());
        b.tool(ToolSpec.builder("test_reconnection")
                .description("Tests SSE stream resumption: the result may arrive after the client reconnects")
                .handler((ctx, args) -> {
                    Thread.sleep(100);
                    return CallToolResult.text("Reconnection test completed");
                })
                .build());
        ObjectNode headerSchema = objectSchema();
        ((ObjectNode) headerSchema.get("properties")).putObject("region").put("type", "string")
                .put("description", "Region to route to; also sent as the Mcp-Param-Region header")
                .put("x-mcp-header", "Region");
        headerSchema.putArray("required").add("region");
        headerSchema.put("additionalProperties", false);
        b.tool(ToolSpec.builder("test_header_param")
                .description("Tests a parameter mirrored into an HTTP header (x-mcp-header)")
                .inputSchema(headerSchema)
                .handler(HeaderArgs.class, (ctx, args) -> "Region: " + args.region())
                .build());
    }

    static ObjectNode sep1034Schema() {
        ObjectNode schema = objectSchema();
        ObjectNode props = (ObjectNode) schema.get("properties");
        props.putObject("name").put("type", "string").put("description", "User name").put("default", "John Doe");
        props.putObject("age").put("type", "integer").put("description", "User age").put("default", 30);
        props.putObject("score").put("type", "number").put("description", "User score").put("default", 95.5);
        ObjectNode status = props.putObject("status").put("type", "string").put("description", "User status");
        status.putArray("enum").add("active").add("inactive").add("pending");
        status.put("default", "active");
        props.putObject("verified").put("type", "boolean").put("description", "Verification status").put("default", true);
        return schema;
    }

    static ObjectNode sep1330Schema() {
        ObjectNode schema = objectSchema();
        ObjectNode props = (ObjectNode) schema.get("properties");
        ObjectNode untitledSingle = props.putObject("untitledSingle").put("type", "string")
                .put("description", "Choose an option");
        untitledSingle.putArray("enum").add("option1").add("option2").add("option3");
        ObjectNode titledSingle = props.putObject("titledSingle").put("type", "string")
                .put("description", "Choose a titled option");
        titled(titledSingle.putArray("oneOf"), "Option");
        ObjectNode legacy = props.putObject("legacyEnum").put("type", "string")
                .put("description", "Choose a legacy option");
        legacy.putArray("enum").add("opt1").add("opt2").add("opt3");
        legacy.putArray("enumNames").add("Option One").add("Option Two").add("Option Three");
        ObjectNode untitledMulti = props.putObject("untitledMulti").put("type", "array")
                .put("description", "Choose multiple options");
        ObjectNode untitledItems = untitledMulti.putObject("items").put("type", "string");
        untitledItems.putArray("enum").add("option1").add("option2").add("option3");
        ObjectNode titledMulti = props.putObject("titledMulti").put("type", "array")
                .put("description", "Choose multiple titled options");
        titled(titledMulti.putObject("items").putArray("anyOf"), "Choice");
        return schema;
    }

    private static void titled(ArrayNode options, String noun) {
        String[] ordinals = {"First", "Second", "Third"};
        for (int i = 0; i < ordinals.length; i++) {
            options.addObject().put("const", "value" + (i + 1)).put("title", ordinals[i] + " " + noun);
        }
    }

    static ObjectNode jsonSchema202012() {
        return (ObjectNode) Json.mapper().readTree("""
                {"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
                 "$defs":{"address":{"$anchor":"addressDef","type":"object",
                   "properties":{"street":{"type":"string"},"city":{"type":"string"}}}},
                 "properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},
                   "contactMethod":{"type":"string","enum":["phone","email"]},
                   "phone":{"type":"string"},"email":{"type":"string"}},
                 "allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],
                 "if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},
                 "then":{"required":["phone"]},"else":{"required":["email"]},
                 "additionalProperties":false}
                """);
    }

    // ---------------------------------------------------------------- 2026-07-28 diagnostics (server-stateless)

    private void statelessDiagnosticTools(McpServer.Builder b) {
        b.tool(ToolSpec.builder("test_missing_capability")
                .description("Requires the client's sampling capability; without it the request is rejected with -32021")
                .handler((ctx, args) -> CallToolResult.text("Sampled: "
                        + text(ctx.sample(samplingParams("Say hello", 20)))))
                .build());
        b.tool(ToolSpec.builder("test_streaming_elicitation")
                .description("Asks the user for input; a 2026-07-28 client gets an input_required result, never a request")
                .handler((ctx, args) -> CallToolResult.text("Elicitation completed: "
                        + describe(ctx.elicit("What is your name?", nameSchema("name")))))
                .build());
        b.tool(ToolSpec.builder("test_logging_tool")
                .description("Emits three log messages; a 2026-07-28 client gets them only if it set a log level")
                .handler((ctx, args) -> {
                    logThree(ctx);
                    return CallToolResult.text("Logging tool executed");
                })
                .build());
        b.tool(ToolSpec.builder("test_trigger_tool_change")
                .description("Changes the tool list (adds or revises " + DYNAMIC_TOOL + ") so listeners are notified")
                .handler((ctx, args) -> {
                    int revision = toolChanges.incrementAndGet();
                    server.get().addTool(dynamicTool(revision));
                    return CallToolResult.text("Tool list changed (revision " + revision + ")");
                })
                .build());
        b.tool(ToolSpec.builder("test_trigger_prompt_change")
                .description("Changes the prompt list (adds or revises " + DYNAMIC_PROMPT + ") so listeners are notified")
                .handler((ctx, args) -> {
                    int revision = promptChanges.incrementAndGet();
                    server.get().addPrompt(dynamicPrompt(revision));
                    return CallToolResult.text("Prompt list changed (revision " + revision + ")");
                })
                .build());
    }

    private static ToolSpec dynamicTool(int revision) {
        return ToolSpec.builder(DYNAMIC_TOOL)
                .description("A tool added at run time by test_trigger_tool_change (revision " + revision + ")")
                .handler((ctx, args) -> CallToolResult.text("Dynamic tool, revision " + revision))
                .build();
    }

    private static PromptSpec dynamicPrompt(int revision) {
        return PromptSpec.builder(DYNAMIC_PROMPT)
                .description("A prompt added at run time by test_trigger_prompt_change (revision " + revision + ")")
                .handler((ctx, args) -> GetPromptResult.of(null,
                        PromptMessage.user(Content.text("Dynamic prompt, revision " + revision))))
                .build();
    }

    // ---------------------------------------------------------------- multi-round-trip (input_required) tools

    /*
     * Each tool asks under the keys the conformance suite names. In 2026-07-28 every request of one ask() goes out
     * in a single input_required result; a legacy session gets them as server-to-client requests, one after another.
     */

    private static void inputRequiredTools(McpServer.Builder b) {
        b.tool(ToolSpec.builder("test_input_required_result_elicitation")
                .description("Asks the user's name by elicitation (key user_name), then greets them")
                .handler((ctx, args) -> {
                    InputAnswers answers = ctx.ask(Map.of("user_name", askName("What is your name?")));
                    return CallToolResult.text("Hello, " + field(answers.elicitation("user_name"), "name", "stranger") + "!");
                })
                .build());
        b.tool(ToolSpec.builder("test_input_required_result_sampling")
                .description("Asks the client's model a question by sampling (key capital_question), then returns the answer")
                .handler((ctx, args) -> {
                    InputAnswers answers = ctx.ask(Map.of("capital_question",
                            InputRequest.sample(samplingParams("What is the capital of France?", 100))));
                    return CallToolResult.text("The model answered: " + text(answers.sampling("capital_question")));
                })
                .build());
        b.tool(ToolSpec.builder("test_input_required_result_list_roots")
                .description("Asks the client for its roots (key client_roots), then lists them")
                .handler((ctx, args) -> {
                    InputAnswers answers = ctx.ask(Map.of("client_roots", roots()));
                    return CallToolResult.text("Client roots: " + describeRoots(answers.roots("client_roots")));
                })
                .build());
        b.tool(ToolSpec.builder("test_input_required_result_request_state")
                .description("Asks for a confirmation (key confirm); the answer comes back with the sealed request state")
                .handler((ctx, args) -> CallToolResult.text("state-ok: confirmed=" + confirm(ctx)))
                .build());
        b.tool(ToolSpec.builder("test_input_required_result_multiple_inputs")
                .description("Needs a name (elicitation), a greeting (sampling) and the client's roots, asked all at once")
                .handler((ctx, args) -> {
                    Map<String, InputRequest> requests = new LinkedHashMap<>();
                    requests.put("user_name", askName("What is your name?"));
                    requests.put("greeting", InputRequest.sample(samplingParams("Generate a greeting", 50)));
                    requests.put("client_roots", roots());
                    InputAnswers answers = ctx.ask(requests);
                    return CallToolResult.text("Name: " + field(answers.elicitation("user_name"), "name", "unknown")
                            + "; greeting: " + text(answers.sampling("greeting"))
                            + "; roots: " + describeRoots(answers.roots("client_roots")));
                })
                .build());
        b.tool(ToolSpec.builder("test_input_required_result_multi_round")
                .description("Asks two questions in two rounds: a name (key step1), then a favorite color (key step2)")
                .handler((ctx, args) -> {
                    ElicitResult step1 = ctx.ask(Map.of("step1", askName("Step 1: What is your name?")))
                            .elicitation("step1");
                    ElicitResult step2 = ctx.ask(Map.of("step2",
                            InputRequest.elicit("Step 2: What is your favorite color?", nameSchema("color"))))
                            .elicitation("step2");
                    return CallToolResult.text("Hello, " + field(step1, "name", "stranger") + "! Your favorite color is "
                            + field(step2, "color", "unknown") + ".");
                })
                .build());
        b.tool(ToolSpec.builder("test_input_required_result_tampered_state")
                .description("Asks for a confirmation (key confirm); a retry whose request state was altered is rejected")
                .handler((ctx, args) -> CallToolResult.text("state-ok: confirmed=" + confirm(ctx)))
                .build());
        b.tool(ToolSpec.builder("test_input_required_result_capabilities")
                .description("Asks, all at once, only for what the client declared: elicitation, sampling and roots")
                .handler((ctx, args) -> {
                    ObjectNode caps = ctx.clientCapabilities();
                    Map<String, InputRequest> requests = new LinkedHashMap<>();
                    if (caps.has("elicitation")) {
                        requests.put("elicit_input", InputRequest.elicit("Elicitation input", nameSchema("value")));
                    }
                    if (caps.has("sampling")) {
                        requests.put("sample_input", InputRequest.sample(samplingParams("Sample request", 50)));
                    }
                    if (caps.has("roots")) {
                        requests.put("client_roots", roots());
                    }
                    if (requests.isEmpty()) {
                        return CallToolResult.text("No supported capabilities declared");
                    }
                    InputAnswers answers = ctx.ask(requests);
                    StringBuilder out = new StringBuilder("capabilities-ok:");
                    if (requests.containsKey("elicit_input")) {
                        out.append(" value=").append(field(answers.elicitation("elicit_input"), "value", "?"));
                    }
                    if (requests.containsKey("sample_input")) {
                        out.append(" sample=").append(text(answers.sampling("sample_input")));
                    }
                    if (requests.containsKey("client_roots")) {
                        out.append(" roots=").append(describeRoots(answers.roots("client_roots")));
                    }
                    return CallToolResult.text(out.toString());
                })
                .build());
    }

    /** {@code roots/list} with empty params, as the suite shows it. */
    private static InputRequest roots() {
        return new InputRequest("roots/list", Json.object());
    }

    private static InputRequest askName(String message) {
        return InputRequest.elicit(message, nameSchema("name"));
    }

    private static String confirm(RequestContext ctx) {
        ElicitResult answer = ctx.ask(Map.of("confirm", InputRequest.elicit("Please confirm", booleanSchema("ok"))))
                .elicitation("confirm");
        return field(answer, "ok", "false");
    }

    // ---------------------------------------------------------------- tasks

    /** Arguments of {@code greet}. */
    public record GreetArgs(@Arg(description = "Who to greet") String name) {
    }

    private static void taskTools(McpServer.Builder b) {
        b.tool(ToolSpec.builder("greet")
                .description("Greets someone; always answers at once, never as a task")
                .handler(GreetArgs.class, (ctx, args) -> CallToolResult.text("Hello, " + args.name() + "!"))
                .build());
        ObjectNode slowSchema = objectSchema();
        ObjectNode slowProps = (ObjectNode) slowSchema.get("properties");
        slowProps.putObject("seconds").put("type", "number").put("minimum", 0).put("maximum", 3600)
                .put("description", "How long to work, in seconds");
        slowProps.putObject("label").put("type", "string").put("description", "A label echoed in the result");
        slowSchema.putArray("required").add("seconds");
        b.tool(ToolSpec.builder("slow_compute")
                .description("Works for the given number of seconds, then reports; runs as a task and can be cancelled")
                .taskSupport(SLOW_COMPUTE_TASK_SUPPORT)
                .inputSchema(slowSchema)
                .handler((ctx, args) -> {
                    double seconds = args.path("seconds").asDouble();
                    String label = args.path("label").asString("computation");
                    Thread.sleep(Duration.ofMillis(Math.round(seconds * 1000)));
                    return CallToolResult.text("Computed " + label + " after " + format(seconds) + " s");
                })
                .build());
        b.tool(ToolSpec.builder("failing_job")
                .description("Runs as a task and ends, after about a second, with a tool error (isError)")
                .taskSupport(TaskSupport.REQUIRED)
                .handler((ctx, args) -> {
                    Thread.sleep(FAILING_JOB_DELAY);
                    throw new ToolException(FAILING_JOB_TEXT);
                })
                .build());
        b.tool(ToolSpec.builder("protocol_error_job")
                .description("Runs as a task and ends with a JSON-RPC protocol error, so the task fails")
                .taskSupport(TaskSupport.REQUIRED)
                .handler((ctx, args) -> {
                    throw new McpException(ErrorCodes.INTERNAL_ERROR, PROTOCOL_ERROR_TEXT);
                })
                .build());
        ObjectNode deleteSchema = objectSchema();
        ((ObjectNode) deleteSchema.get("properties")).putObject("filename").put("type", "string")
                .put("description", "The file to delete");
        deleteSchema.putArray("required").add("filename");
        b.tool(ToolSpec.builder("confirm_delete")
                .description("Runs as a task that waits for the user to confirm, by elicitation (key confirm), a deletion")
                .taskSupport(TaskSupport.REQUIRED)
                .inputSchema(deleteSchema)
                .handler((ctx, args) -> {
                    String filename = args.path("filename").asString();
                    ElicitResult answer = ctx.ask(Map.of("confirm",
                            InputRequest.elicit("Delete " + filename + "?", booleanSchema("confirm"))))
                            .elicitation("confirm");
                    boolean confirmed = "true".equals(field(answer, "confirm", "false"));
                    return CallToolResult.text(confirmed ? "Deleted " + filename : "Kept " + filename);
                })
                .build());
        b.tool(ToolSpec.builder("multi_input")
                .description("Runs as a task that asks two questions at once by elicitation (keys name and confirm)")
                .taskSupport(TaskSupport.REQUIRED)
                .handler((ctx, args) -> {
                    Map<String, InputRequest> requests = new LinkedHashMap<>();
                    requests.put("name", askName("What is your name?"));
                    requests.put("confirm", InputRequest.elicit("Do you want to continue?", booleanSchema("confirm")));
                    InputAnswers answers = ctx.ask(requests);
                    return CallToolResult.text("Name: " + field(answers.elicitation("name"), "name", "unknown")
                            + "; confirmed: " + field(answers.elicitation("confirm"), "confirm", "false"));
                })
                .build());
        // Asks before its task: in 2026-07-28 the name comes by input_required, and the task starts once it is known.
        b.tool(ToolSpec.builder("test_tool_with_task")
                .description("Asks the user's name (key user_name), then runs as a task that greets them in its result")
                .taskSupport(TaskSupport.REQUIRED)
                .inputBeforeTask(true)
                .handler((ctx, args) -> {
                    ElicitResult answer = ctx.ask(Map.of("user_name", askName("What is your name?"))).elicitation("user_name");
                    ctx.continueAsTask();
                    return CallToolResult.text("Hello, " + field(answer, "name", "stranger") + "! (from a task)");
                })
                .build());
    }

    private static String format(double seconds) {
        return seconds == Math.rint(seconds) ? Long.toString((long) seconds) : Double.toString(seconds);
    }

    // ---------------------------------------------------------------- resources

    private static void resources(McpServer.Builder b) {
        // First in resources/list, and readable: caching probes read resources[0].
        b.resource(ResourceSpec.builder("test://static-text", "static-text")
                .title("Static text resource")
                .description("A static text resource for testing")
                .mimeType("text/plain")
                .text(STATIC_TEXT)
                .build());
        b.resource(ResourceSpec.builder("test://static-binary", "static-binary")
                .title("Static binary resource")
                .description("A static binary resource (a PNG image) for testing")
                .mimeType("image/png")
                .blob(PNG)
                .build());
        b.resource(ResourceSpec.builder("test://watched-resource", "watched-resource")
                .title("Watched resource")
                .description("A resource clients can subscribe to")
                .mimeType("text/plain")
                .text("Watched resource content")
                .build());
        b.resourceTemplate(ResourceTemplateSpec.builder("test://template/{id}/data", "template")
                .title("Template resource")
                .description("A resource template with an id parameter")
                .mimeType("application/json")
                .handler((ctx, uri, vars) -> {
                    String id = vars.get("id");
                    ObjectNode data = Json.object();
                    data.put("id", id);
                    data.put("templateTest", true);
                    data.put("data", "Data for ID: " + id);
                    return ReadResourceResult.of(ResourceContents.text(uri, "application/json",
                            Json.mapper().writeValueAsString(data)));
                })
                .complete("id", (value, context) -> startingWith(TEMPLATE_IDS, value))
                .build());
    }

    // ---------------------------------------------------------------- prompts

    private static void prompts(McpServer.Builder b) {
        b.prompt(PromptSpec.builder("test_simple_prompt")
                .description("A simple prompt without arguments")
                .handler((ctx, args) -> GetPromptResult.of(null,
                        PromptMessage.user(Content.text("This is a simple prompt for testing."))))
                .build());
        b.prompt(PromptSpec.builder("test_prompt_with_arguments")
                .description("A prompt with required arguments")
                .argument("arg1", "First test argument", true)
                .argument("arg2", "Second test argument", true)
                .handler((ctx, args) -> GetPromptResult.of(null, PromptMessage.user(Content.text(
                        "Prompt with arguments: arg1='" + args.get("arg1") + "', arg2='" + args.get("arg2") + "'"))))
                .complete("arg1", (value, context) -> startingWith(ARGUMENT_SUGGESTIONS, value))
                .complete("arg2", (value, context) -> startingWith(ARGUMENT_SUGGESTIONS, value))
                .build());
        b.prompt(PromptSpec.builder("test_prompt_with_embedded_resource")
                .description("A prompt that includes an embedded resource")
                .argument("resourceUri", "URI of the resource to embed", true)
                .handler((ctx, args) -> GetPromptResult.of(null,
                        PromptMessage.user(Content.resource(ResourceContents.text(args.get("resourceUri"), "text/plain",
                                "Embedded resource content for testing."))),
                        PromptMessage.user(Content.text("Please process the embedded resource above."))))
                .build());
        b.prompt(PromptSpec.builder("test_prompt_with_image")
                .description("A prompt that includes image content")
                .handler((ctx, args) -> GetPromptResult.of(null,
                        PromptMessage.user(Content.image(PNG_BASE64, "image/png")),
                        PromptMessage.user(Content.text("Please analyze the image above."))))
                .build());
        b.prompt(PromptSpec.builder("test_input_required_result_prompt")
                .description("A prompt that first asks the user, by elicitation, what context to use")
                .handler((ctx, args) -> {
                    ElicitResult answer = ctx.ask(Map.of("user_context",
                            InputRequest.elicit("What context should the prompt use?", nameSchema("context"))))
                            .elicitation("user_context");
                    return GetPromptResult.of("A prompt built from user-provided context", PromptMessage.user(Content.text(
                            "Use this context: " + field(answer, "context", "none given"))));
                })
                .build());
    }

    // ---------------------------------------------------------------- schemas and answers

    private static ObjectNode objectSchema() {
        ObjectNode schema = Json.object();
        schema.put("type", "object");
        schema.putObject("properties");
        return schema;
    }

    /** A form with one required string field. */
    static ObjectNode nameSchema(String field) {
        ObjectNode schema = objectSchema();
        ((ObjectNode) schema.get("properties")).putObject(field).put("type", "string");
        schema.putArray("required").add(field);
        return schema;
    }

    private static ObjectNode booleanSchema(String field) {
        ObjectNode schema = objectSchema();
        ((ObjectNode) schema.get("properties")).putObject(field).put("type", "boolean");
        schema.putArray("required").add(field);
        return schema;
    }

    static ObjectNode samplingParams(String prompt, int maxTokens) {
        ObjectNode params = Json.object();
        ObjectNode message = params.putArray("messages").addObject();
        message.put("role", "user");
        message.putObject("content").put("type", "text").put("text", prompt);
        params.put("maxTokens", maxTokens);
        return params;
    }

    private static String text(CreateMessageResult result) {
        if (result == null) {
            return "(no answer)";
        }
        return result.content() instanceof TextContent t ? t.text() : "(non-text content)";
    }

    private static String describe(ElicitResult result) {
        String content = result.content() == null ? "{}" : Json.mapper().writeValueAsString(result.content());
        return "action=" + result.action() + ", content=" + content;
    }

    private static String field(ElicitResult result, String name, String fallback) {
        if (result == null || !result.accepted() || result.content() == null) {
            return fallback;
        }
        JsonNode value = result.content().get(name);
        if (value == null || value.isNull()) {
            return fallback;
        }
        return value.isString() ? value.stringValue() : value.toString();
    }

    private static String describeRoots(List<Root> roots) {
        if (roots.isEmpty()) {
            return "(none)";
        }
        StringBuilder out = new StringBuilder();
        for (Root r : roots) {
            if (!out.isEmpty()) {
                out.append(", ");
            }
            out.append(r.name() == null ? r.uri() : r.name() + " <" + r.uri() + ">");
        }
        return out.toString();
    }

    private static List<String> startingWith(List<String> candidates, String prefix) {
        return candidates.stream().filter(c -> c.startsWith(prefix)).toList();
    }

    // ---------------------------------------------------------------- media

    /** A truecolor PNG of a color gradient. */
    private static byte[] png(int width, int height) {
        ByteArrayOutputStream raw = new ByteArrayOutputStream();
        for (int y = 0; y < height; y++) {
            raw.write(0); // filter: none
            for (int x = 0; x < width; x++) {
                raw.write(x * 255 / Math.max(1, width - 1));
                raw.write(y * 255 / Math.max(1, height - 1));
                raw.write(128);
            }
        }
        Deflater deflater = new Deflater();
        deflater.setInput(raw.toByteArray());
        deflater.finish();
        ByteArrayOutputStream compressed = new ByteArrayOutputStream();
        byte[] buffer = new byte[1024];
        while (!deflater.finished()) {
            compressed.write(buffer, 0, deflater.deflate(buffer));
        }
        deflater.end();
        ByteBuffer header = ByteBuffer.allocate(13).putInt(width).putInt(height)
                .put((byte) 8).put((byte) 2).put((byte) 0).put((byte) 0).put((byte) 0);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'});
        chunk(out, "IHDR", header.array());
        chunk(out, "IDAT", compressed.toByteArray());
        chunk(out, "IEND", new byte[0]);
        return out.toByteArray();
    }

    private static void chunk(ByteArrayOutputStream out, String type, byte[] data) {
        byte[] typeBytes = type.getBytes(StandardCharsets.US_ASCII);
        CRC32 crc = new CRC32();
        crc.update(typeBytes);
        crc.update(data);
        out.writeBytes(ByteBuffer.allocate(4).putInt(data.length).array());
        out.writeBytes(typeBytes);
        out.writeBytes(data);
        out.writeBytes(ByteBuffer.allocate(4).putInt((int) crc.getValue()).array());
    }

    /** A mono 16-bit PCM WAVE file holding a sine tone. */
    private static byte[] wav(int sampleRate, int samples, double frequency) {
        int dataBytes = samples * 2;
        ByteBuffer b = ByteBuffer.allocate(44 + dataBytes).order(ByteOrder.LITTLE_ENDIAN);
        b.put("RIFF".getBytes(StandardCharsets.US_ASCII)).putInt(36 + dataBytes).put("WAVE".getBytes(StandardCharsets.US_ASCII));
        b.put("fmt ".getBytes(StandardCharsets.US_ASCII)).putInt(16).putShort((short) 1).putShort((short) 1)
                .putInt(sampleRate).putInt(sampleRate * 2).putShort((short) 2).putShort((short) 16);
        b.put("data".getBytes(StandardCharsets.US_ASCII)).putInt(dataBytes);
        for (int i = 0; i < samples; i++) {
            b.putShort((short) Math.round(Math.sin(2 * Math.PI * frequency * i / sampleRate) * 8_000));
        }
        return b.array();
    }
}
