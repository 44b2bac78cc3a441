package dev.tern.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Predicate;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import dev.tern.examples.UserDirectory;
import dev.tern.protocol.Json;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ClientCapabilities;
import io.modelcontextprotocol.spec.McpSchema.CompleteRequest;
import io.modelcontextprotocol.spec.McpSchema.CompleteResult;
import io.modelcontextprotocol.spec.McpSchema.CreateMessageRequest;
import io.modelcontextprotocol.spec.McpSchema.CreateMessageResult;
import io.modelcontextprotocol.spec.McpSchema.ElicitFormRequest;
import io.modelcontextprotocol.spec.McpSchema.ElicitResult;
import io.modelcontextprotocol.spec.McpSchema.ElicitUrlRequest;
import io.modelcontextprotocol.spec.McpSchema.EmbeddedResource;
import io.modelcontextprotocol.spec.McpSchema.GetPromptRequest;
import io.modelcontextprotocol.spec.McpSchema.GetPromptResult;
import io.modelcontextprotocol.spec.McpSchema.Implementation;
import io.modelcontextprotocol.spec.McpSchema.InitializeResult;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCNotification;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import io.modelcontextprotocol.spec.McpSchema.ListToolsResult;
import io.modelcontextprotocol.spec.McpSchema.LoggingLevel;
import io.modelcontextprotocol.spec.McpSchema.LoggingMessageNotification;
import io.modelcontextprotocol.spec.McpSchema.ProgressNotification;
import io.modelcontextprotocol.spec.McpSchema.Prompt;
import io.modelcontextprotocol.spec.McpSchema.ReadResourceRequest;
import io.modelcontextprotocol.spec.McpSchema.ReadResourceResult;
import io.modelcontextprotocol.spec.McpSchema.Resource;
import io.modelcontextprotocol.spec.McpSchema.ResourceTemplate;
import io.modelcontextprotocol.spec.McpSchema.Role;
import io.modelcontextprotocol.spec.McpSchema.Root;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.TextResourceContents;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import io.modelcontextprotocol.spec.ProtocolVersions;
import tools.jackson.core.type.TypeReference;

/**
 * Interop over stdio between real Tern processes and the official MCP Java SDK client ({@code McpClient.sync} with
 * {@code StdioClientTransport}): the SDK starts the server process itself, negotiates a 2025-11-25 session and
 * drives every feature through its own API, so whatever Tern writes must parse in the SDK.
 */
class JavaSdkClientStdioTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Implementation CLIENT_INFO =
            Implementation.builder("tern-java-sdk-interop-test", "1.0.0").build();
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {
    };

    /** The user-directory example as served by {@code tern serve --stdio}; one session for all its tests. */
    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class UserDirectoryExample {
        private final UserDirectory directory = UserDirectory.generate(1_000);
        private JavaSdkRecordingTransport transport;
        private McpSyncClient client;
        private InitializeResult initialized;

        @BeforeAll
        void start() {
            transport = new JavaSdkRecordingTransport(TernProcess.command("user-directory"));
            client = McpClient.sync(transport)
                    .clientInfo(CLIENT_INFO)
                    .requestTimeout(TIMEOUT)
                    .initializationTimeout(TIMEOUT)
                    // the SDK lists tools after initialize and checks every structuredContent against the outputSchema
                    .enableCallToolSchemaCaching(true)
                    .build();
            initialized = client.initialize();
        }

        @AfterAll
        void stop() {
            if (client != null) {
                client.closeGracefully();
                assertNoServerErrors(transport.stderr());
            }
        }

        @Test
        void initializeNegotiatesTheSdksLatestVersionAndReportsServerInfoAndCapabilities() {
            assertThat(initialized.protocolVersion()).isEqualTo(ProtocolVersions.MCP_2025_11_25);
            assertThat(initialized.serverInfo().name()).isEqualTo("tern-user-directory");
            assertThat(initialized.serverInfo().version()).isEqualTo("0.1.0");
            assertThat(initialized.instructions()).contains("get_user", "search_users", "list_users");
            McpSchema.ServerCapabilities caps = initialized.capabilities();
            assertThat(caps.tools()).isNotNull();
            assertThat(caps.tools().listChanged()).isTrue();
            assertThat(caps.resources()).isNotNull();
            assertThat(caps.resources().subscribe()).isTrue();
            assertThat(caps.resources().listChanged()).isTrue();
            assertThat(caps.prompts()).isNotNull();
            assertThat(caps.prompts().listChanged()).isTrue();
            assertThat(caps.completions()).isNotNull();
            assertThat(caps.logging()).isNotNull();

            assertThat(client.isInitialized()).isTrue();
            assertThat(client.getServerInfo()).isEqualTo(initialized.serverInfo());

            // the initialize request on the wire carried what the SDK was configured with
            McpSchema.JSONRPCRequest init = (McpSchema.JSONRPCRequest) transport.sent().get(0);
            assertThat(init.method()).isEqualTo(McpSchema.METHOD_INITIALIZE);
            assertThat(((McpSchema.InitializeRequest) init.params()).clientInfo()).isEqualTo(CLIENT_INFO);
        }

        @Test
        void listsToolsWithTheInputAndOutputSchemasOfGetUser() {
            ListToolsResult page = client.listTools(McpSchema.FIRST_PAGE);
            assertThat(page.nextCursor()).isNull();
            assertThat(page.tools()).extracting(Tool::name)
                    .containsExactlyInAnyOrder("get_user", "search_users", "list_users");

            Tool getUser = tool(page.tools(), "get_user");
            assertThat(getUser.title()).isEqualTo("Get user");
            assertThat(getUser.description()).isEqualTo("Fetch one user by id.");
            assertThat(getUser.annotations().readOnlyHint()).isTrue();
            assertThat(getUser.annotations().idempotentHint()).isTrue();

            Map<String, Object> input = getUser.inputSchema();
            assertThat(input).containsEntry("type", "object");
            Map<String, Object> inputProperties = asMap(input.get("properties"));
            assertThat(inputProperties).containsOnlyKeys("id");
            assertThat(asMap(inputProperties.get("id"))).containsEntry("type", "string")
                    .containsEntry("description", "The user's id, e.g. \"42\"");
            assertThat(input.get("required")).isEqualTo(List.of("id"));

            Map<String, Object> output = getUser.outputSchema();
            assertThat(output).isNotNull().containsEntry("type", "object");
            Map<String, Object> outputProperties = asMap(output.get("properties"));
            assertThat(outputProperties).containsOnlyKeys("id", "username", "name", "email", "phone", "title",
                    "department", "address", "roles", "active", "createdAt");
            assertThat(asMap(outputProperties.get("id"))).containsEntry("type", "string");
            assertThat(asMap(outputProperties.get("active"))).containsEntry("type", "boolean");
            assertThat(asMap(outputProperties.get("roles"))).containsEntry("type", "array");
            Map<String, Object> address = asMap(outputProperties.get("address"));
            assertThat(address).containsEntry("type", "object");
            assertThat(asMap(address.get("properties"))).containsOnlyKeys("street", "city", "postalCode", "country");

            // the automatic all-pages listing of the SDK sees the same tools
            assertThat(client.listTools().tools()).extracting(Tool::name)
                    .containsExactlyElementsOf(page.tools().stream().map(Tool::name).toList());
        }

        @Test
        void callsGetUserAndGetsStructuredContentAndTheSameJsonAsText() {
            CallToolResult result = client.callTool(call("get_user", Map.of("id", "7")));

            assertThat(result.isError()).isNotEqualTo(Boolean.TRUE);
            Map<String, Object> expected = Json.mapper().convertValue(directory.find("7").orElseThrow(), MAP);
            assertThat(result.structuredContent()).isInstanceOf(Map.class);
            assertThat(asMap(result.structuredContent())).isEqualTo(expected);
            assertThat(asMap(result.structuredContent())).containsEntry("id", "7");

            assertThat(result.content()).hasSize(1);
            assertThat(result.content().get(0)).isInstanceOf(TextContent.class);
            String text = ((TextContent) result.content().get(0)).text();
            assertThat(Json.mapper().readValue(text, MAP)).isEqualTo(expected);
        }

        @Test
        void argumentsThatBreakTheInputSchemaGiveAToolErrorNotAProtocolError() {
            CallToolResult missing = client.callTool(call("get_user", Map.of()));
            assertThat(missing.isError()).isTrue();
            assertThat(text(missing)).contains("id");
            assertThat(missing.structuredContent()).isNull();

            CallToolResult wrongType = client.callTool(call("get_user", Map.of("id", 7)));
            assertThat(wrongType.isError()).isTrue();
            assertThat(text(wrongType)).contains("id");

            CallToolResult unknownUser = client.callTool(call("get_user", Map.of("id", "4242")));
            assertThat(unknownUser.isError()).isTrue();
            assertThat(text(unknownUser)).isEqualTo("No user with id 4242");

            CallToolResult outOfRange = client.callTool(
                    call("search_users", Map.of("query", "ada", "limit", 1000)));
            assertThat(outOfRange.isError()).isTrue();
        }

        @Test
        void anUnknownToolIsAnInvalidParamsProtocolError() {
            assertThatThrownBy(() -> client.callTool(call("no_such_tool", Map.of())))
                    .isInstanceOfSatisfying(McpError.class, e -> {
                        assertThat(e.getJsonRpcError().code()).isEqualTo(McpSchema.ErrorCodes.INVALID_PARAMS);
                        assertThat(e.getJsonRpcError().message()).contains("no_such_tool");
                    });
            // the session goes on
            assertThat(client.ping()).isNotNull();
        }

        @Test
        void listsResourcesAndTemplates() {
            McpSchema.ListResourcesResult resources = client.listResources(McpSchema.FIRST_PAGE);
            assertThat(resources.nextCursor()).isNull();
            assertThat(resources.resources()).extracting(Resource::uri).containsExactly("users://stats");
            Resource stats = resources.resources().get(0);
            assertThat(stats.name()).isEqualTo("stats");
            assertThat(stats.title()).isEqualTo("Directory statistics");
            assertThat(stats.mimeType()).isEqualTo("application/json");

            McpSchema.ListResourceTemplatesResult templates = client.listResourceTemplates(McpSchema.FIRST_PAGE);
            assertThat(templates.nextCursor()).isNull();
            assertThat(templates.resourceTemplates()).extracting(ResourceTemplate::uriTemplate)
                    .containsExactly("user://{id}");
            ResourceTemplate user = templates.resourceTemplates().get(0);
            assertThat(user.name()).isEqualTo("user");
            assertThat(user.title()).isEqualTo("User record");
            assertThat(user.description()).isEqualTo("One user as JSON.");
            assertThat(user.mimeType()).isEqualTo("application/json");
        }

        @Test
        void readsATemplatedResourceAndAFixedOne() {
            ReadResourceResult user = client.readResource(read("user://7"));
            assertThat(user.contents()).hasSize(1);
            TextResourceContents contents = (TextResourceContents) user.contents().get(0);
            assertThat(contents.uri()).isEqualTo("user://7");
            assertThat(contents.mimeType()).isEqualTo("application/json");
            assertThat(Json.mapper().readValue(contents.text(), MAP))
                    .isEqualTo(Json.mapper().convertValue(directory.find("7").orElseThrow(), MAP));

            ReadResourceResult stats = client.readResource(read("users://stats"));
            assertThat(stats.contents()).hasSize(1);
            TextResourceContents statsContents = (TextResourceContents) stats.contents().get(0);
            assertThat(statsContents.uri()).isEqualTo("users://stats");
            assertThat(statsContents.mimeType()).isEqualTo("application/json");
            long active = directory.page(0, directory.size()).stream().filter(UserDirectory.User::active).count();
            assertThat(Json.mapper().readValue(statsContents.text(), MAP))
                    .containsEntry("users", 1_000).containsEntry("active", (int) active);
        }

        @Test
        void readingAnUnknownResourceIsResourceNotFound() {
            assertThatThrownBy(() -> client.readResource(read("user://424242")))
                    .isInstanceOfSatisfying(McpError.class, e ->
                            assertThat(e.getJsonRpcError().code()).isEqualTo(McpSchema.ErrorCodes.RESOURCE_NOT_FOUND));
        }

        @Test
        void subscribesAndUnsubscribes() {
            client.subscribeResource(McpSchema.SubscribeRequest.builder("users://stats").build());
            client.unsubscribeResource(McpSchema.UnsubscribeRequest.builder("users://stats").build());
            assertThat(client.ping()).isNotNull();
        }

        @Test
        void completesTheUserIdOfTheTemplateAndOfThePrompt() {
            CompleteResult template = client.completeCompletion(CompleteRequest.builder(
                    new McpSchema.ResourceReference("user://{id}"), new CompleteRequest.CompleteArgument("id", "4"))
                    .build());
            CompleteResult.CompleteCompletion completion = template.completion();
            // "4", "40".."49", "400".."499": 111 ids, of which at most 100 are returned
            assertThat(completion.values()).hasSize(100).allMatch(v -> v.startsWith("4")).contains("4", "42", "400");
            assertThat(completion.total()).isEqualTo(111);
            assertThat(completion.hasMore()).isTrue();

            CompleteResult prompt = client.completeCompletion(CompleteRequest.builder(
                    new McpSchema.PromptReference("summarize_user"), new CompleteRequest.CompleteArgument("id", "99"))
                    .build());
            assertThat(prompt.completion().values()).containsExactly("99", "990", "991", "992", "993", "994", "995",
                    "996", "997", "998", "999");
            assertThat(prompt.completion().hasMore()).isFalse();
        }

        @Test
        void listsAndGetsThePrompt() {
            McpSchema.ListPromptsResult prompts = client.listPrompts(McpSchema.FIRST_PAGE);
            assertThat(prompts.nextCursor()).isNull();
            assertThat(prompts.prompts()).extracting(Prompt::name).containsExactly("summarize_user");
            Prompt summarize = prompts.prompts().get(0);
            assertThat(summarize.title()).isEqualTo("Summarize a user");
            assertThat(summarize.arguments()).singleElement().satisfies(a -> {
                assertThat(a.name()).isEqualTo("id");
                assertThat(a.description()).isEqualTo("The user's id");
                assertThat(a.required()).isTrue();
            });

            GetPromptResult result = client.getPrompt(
                    GetPromptRequest.builder("summarize_user").arguments(Map.of("id", "7")).build());
            assertThat(result.description()).isEqualTo("Summary of user 7");
            assertThat(result.messages()).hasSize(2);
            assertThat(result.messages()).allSatisfy(m -> assertThat(m.role()).isEqualTo(Role.USER));
            assertThat(result.messages().get(0).content()).isInstanceOfSatisfying(TextContent.class,
                    t -> assertThat(t.text()).isEqualTo("Summarize this user in two sentences for a colleague."));
            assertThat(result.messages().get(1).content()).isInstanceOfSatisfying(EmbeddedResource.class, r -> {
                TextResourceContents embedded = (TextResourceContents) r.resource();
                assertThat(embedded.uri()).isEqualTo("user://7");
                assertThat(embedded.mimeType()).isEqualTo("application/json");
                assertThat(Json.mapper().readValue(embedded.text(), MAP)).containsEntry("id", "7");
            });

            assertThatThrownBy(() -> client.getPrompt(
                    GetPromptRequest.builder("summarize_user").arguments(Map.of("id", "0")).build()))
                    .isInstanceOfSatisfying(McpError.class, e ->
                            assertThat(e.getJsonRpcError().code()).isEqualTo(McpSchema.ErrorCodes.INVALID_PARAMS));
        }

        @Test
        void answersPing() {
            assertThat(client.ping()).isNotNull();
        }
    }

    /**
     * A test server whose tools report progress, log, elicit, sample, list roots and run until cancelled; the SDK
     * answers the server's requests through its handlers. A fresh process and session per test.
     */
    @Nested
    class ServerToClientFeatures {
        private final BlockingQueue<ProgressNotification> progress = new LinkedBlockingQueue<>();
        private final BlockingQueue<LoggingMessageNotification> logs = new LinkedBlockingQueue<>();
        private final List<ElicitFormRequest> formElicitations = new CopyOnWriteArrayList<>();
        private final List<ElicitUrlRequest> urlElicitations = new CopyOnWriteArrayList<>();
        private final List<CreateMessageRequest> samplings = new CopyOnWriteArrayList<>();
        private final AtomicReference<Function<ElicitFormRequest, ElicitResult>> formAnswer = new AtomicReference<>();
        private final ExecutorService background = Executors.newCachedThreadPool();
        private JavaSdkRecordingTransport transport;
        private McpSyncClient client;

        @BeforeEach
        void start() {
            List<String> command = List.of(TernProcess.javaExecutable(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                    "-cp", TernProcess.classpath(), JavaSdkInteropServer.class.getName());
            transport = new JavaSdkRecordingTransport(command);
            client = McpClient.sync(transport)
                    .clientInfo(CLIENT_INFO)
                    .requestTimeout(TIMEOUT)
                    .initializationTimeout(TIMEOUT)
                    .enableCallToolSchemaCaching(true)
                    .capabilities(ClientCapabilities.builder().roots(true).sampling().elicitation(true, true).build())
                    .roots(new Root("file:///projects/project", "project"))
                    .progressConsumer(progress::add)
                    .loggingConsumer(logs::add)
                    .elicitation(request -> {
                        formElicitations.add(request);
                        return formAnswer.get().apply(request);
                    })
                    .urlElicitation(request -> {
                        urlElicitations.add(request);
                        return new ElicitResult(ElicitResult.Action.ACCEPT, null);
                    })
                    .sampling(request -> {
                        samplings.add(request);
                        String prompt = ((TextContent) request.messages().get(0).content()).text();
                        return new CreateMessageResult(Role.ASSISTANT, TextContent.builder("answer to: " + prompt).build(),
                                "interop-model", CreateMessageResult.StopReason.END_TURN);
                    })
                    .build();
            InitializeResult initialized = client.initialize();
            assertThat(initialized.protocolVersion()).isEqualTo(ProtocolVersions.MCP_2025_11_25);
            assertThat(initialized.serverInfo().name()).isEqualTo("tern-java-sdk-interop");
        }

        @AfterEach
        void stop() {
            try {
                if (client != null) {
                    client.closeGracefully();
                }
                assertNoServerErrors(transport.stderr());
            } finally {
                background.shutdownNow();
            }
        }

        @Test
        void progressAndLogMessagesArriveBeforeTheResultAndHonourTheLogLevel() throws InterruptedException {
            int mark = transport.received().size();
            CallToolResult result = client.callTool(CallToolRequest.builder("count_to")
                    .arguments(Map.of("n", 3)).progressToken("count-1").build());
            assertThat(result.isError()).isNotEqualTo(Boolean.TRUE);
            assertThat(asMap(result.structuredContent())).containsEntry("count", 3);

            List<JSONRPCMessage> exchange = untilResponse(mark, transport.lastToolCallId("count_to").orElseThrow());
            List<Map<String, Object>> progressParams = params(exchange, McpSchema.METHOD_NOTIFICATION_PROGRESS);
            assertThat(progressParams).extracting(p -> p.get("progressToken")).containsOnly("count-1");
            assertThat(progressParams).extracting(p -> ((Number) p.get("progress")).doubleValue())
                    .containsExactly(1.0, 2.0, 3.0);
            assertThat(progressParams).extracting(p -> ((Number) p.get("total")).doubleValue()).containsOnly(3.0);
            assertThat(progressParams).extracting(p -> p.get("message"))
                    .containsExactly("step 1 of 3", "step 2 of 3", "step 3 of 3");
            // a session that has not set a level gets info and above
            List<Map<String, Object>> logParams = params(exchange, McpSchema.METHOD_NOTIFICATION_MESSAGE);
            assertThat(logParams).extracting(p -> p.get("level")).containsExactly("info", "info", "info", "warning");
            assertThat(logParams).extracting(p -> p.get("data"))
                    .containsExactly("step 1", "step 2", "step 3", "counted to 3");
            assertThat(logParams).extracting(p -> p.get("logger")).containsOnly("interop");

            // the SDK parsed them and handed them to its consumers
            List<ProgressNotification> parsedProgress = take(progress, 3);
            assertThat(parsedProgress).extracting(ProgressNotification::progressToken).containsOnly("count-1");
            assertThat(parsedProgress).extracting(ProgressNotification::progress).containsExactlyInAnyOrder(1.0, 2.0, 3.0);
            List<LoggingMessageNotification> parsedLogs = take(logs, 4);
            assertThat(parsedLogs).anySatisfy(n -> {
                assertThat(n.level()).isEqualTo(LoggingLevel.WARNING);
                assertThat(n.logger()).isEqualTo("interop");
                assertThat(n.data()).isEqualTo("counted to 3");
            });

            client.setLoggingLevel(LoggingLevel.DEBUG);
            mark = transport.received().size();
            client.callTool(call("count_to", Map.of("n", 1)));
            exchange = untilResponse(mark, transport.lastToolCallId("count_to").orElseThrow());
            assertThat(params(exchange, McpSchema.METHOD_NOTIFICATION_MESSAGE)).extracting(p -> p.get("level"))
                    .containsExactly("debug", "info", "warning");
            // no progress token, no progress
            assertThat(params(exchange, McpSchema.METHOD_NOTIFICATION_PROGRESS)).isEmpty();

            client.setLoggingLevel(LoggingLevel.ERROR);
            mark = transport.received().size();
            client.callTool(CallToolRequest.builder("count_to").arguments(Map.of("n", 2)).progressToken(7).build());
            exchange = untilResponse(mark, transport.lastToolCallId("count_to").orElseThrow());
            assertThat(params(exchange, McpSchema.METHOD_NOTIFICATION_MESSAGE)).isEmpty();
            assertThat(params(exchange, McpSchema.METHOD_NOTIFICATION_PROGRESS))
                    .extracting(p -> ((Number) p.get("progressToken")).intValue()).containsExactly(7, 7);
        }

        @Test
        void formElicitationIsAnsweredThroughTheSdksHandler() {
            formAnswer.set(request -> new ElicitResult(ElicitResult.Action.ACCEPT, Map.of("name", "Ada", "age", 36)));
            CallToolResult accepted = client.callTool(call("ask_user", Map.of("question", "Who are you?")));
            assertThat(accepted.isError()).isNotEqualTo(Boolean.TRUE);
            assertThat(asMap(accepted.structuredContent()))
                    .containsEntry("action", "accept").containsEntry("name", "Ada").containsEntry("age", 36);

            assertThat(formElicitations).hasSize(1);
            ElicitFormRequest request = formElicitations.get(0);
            assertThat(request.message()).isEqualTo("Who are you?");
            Map<String, Object> schema = request.requestedSchema();
            assertThat(schema).containsEntry("type", "object").containsEntry("required", List.of("name"));
            assertThat(asMap(schema.get("properties"))).containsOnlyKeys("name", "age");
            assertThat(asMap(asMap(schema.get("properties")).get("age"))).containsEntry("type", "integer");

            formAnswer.set(r -> new ElicitResult(ElicitResult.Action.DECLINE, null));
            CallToolResult declined = client.callTool(call("ask_user", Map.of("question", "Again?")));
            assertThat(asMap(declined.structuredContent())).containsEntry("action", "decline");

            formAnswer.set(r -> new ElicitResult(ElicitResult.Action.CANCEL, null));
            CallToolResult cancelled = client.callTool(call("ask_user", Map.of("question", "Once more?")));
            assertThat(asMap(cancelled.structuredContent())).containsEntry("action", "cancel");
            assertThat(formElicitations).hasSize(3);
        }

        @Test
        void urlElicitationIsAnsweredThroughTheSdksHandler() {
            CallToolResult result = client.callTool(
                    call("open_link", Map.of("url", "https://login.example/start")));
            assertThat(result.isError()).isNotEqualTo(Boolean.TRUE);
            assertThat(asMap(result.structuredContent())).containsEntry("action", "accept");
            assertThat(urlElicitations).singleElement().satisfies(request -> {
                assertThat(request.message()).isEqualTo("Please sign in");
                assertThat(request.url()).isEqualTo("https://login.example/start");
                assertThat(request.elicitationId()).isEqualTo("elicitation-42");
            });
            assertThat(formElicitations).isEmpty();
        }

        @Test
        void samplingIsAnsweredThroughTheSdksHandler() {
            CallToolResult result = client.callTool(call("ask_model", Map.of("prompt", "What is 2+2?")));
            assertThat(result.isError()).isNotEqualTo(Boolean.TRUE);
            assertThat(asMap(result.structuredContent()))
                    .containsEntry("role", "assistant")
                    .containsEntry("text", "answer to: What is 2+2?")
                    .containsEntry("model", "interop-model")
                    .containsEntry("stopReason", "endTurn");

            assertThat(samplings).singleElement().satisfies(request -> {
                assertThat(request.messages()).singleElement().satisfies(m -> {
                    assertThat(m.role()).isEqualTo(Role.USER);
                    assertThat(m.content()).isEqualTo(TextContent.builder("What is 2+2?").build());
                });
                assertThat(request.systemPrompt()).isEqualTo("Answer briefly.");
                assertThat(request.maxTokens()).isEqualTo(64);
            });
        }

        @Test
        void rootsComeFromTheSdkAndFollowItsChanges() {
            CallToolResult first = client.callTool(call("list_roots", Map.of()));
            assertThat(first.isError()).isNotEqualTo(Boolean.TRUE);
            assertThat(asMap(first.structuredContent()).get("roots"))
                    .isEqualTo(List.of(Map.of("uri", "file:///projects/project", "name", "project")));

            client.addRoot(new Root("file:///projects/docs", "docs"));
            CallToolResult second = client.callTool(call("list_roots", Map.of()));
            assertThat(asList(asMap(second.structuredContent()).get("roots")))
                    .containsExactlyInAnyOrder(Map.of("uri", "file:///projects/project", "name", "project"),
                            Map.of("uri", "file:///projects/docs", "name", "docs"));
            // the SDK told the server about the change
            assertThat(transport.sent()).anySatisfy(m -> assertThat(m).isInstanceOfSatisfying(JSONRPCNotification.class,
                    n -> assertThat(n.method()).isEqualTo(McpSchema.METHOD_NOTIFICATION_ROOTS_LIST_CHANGED)));
        }

        @Test
        void cancellingAToolCallStopsItAndNoResponseIsSent() throws Exception {
            CompletableFuture<CallToolResult> slow = CompletableFuture.supplyAsync(() -> client.callTool(
                    CallToolRequest.builder("slow_task").arguments(Map.of("job", "job-1")).progressToken("slow-1").build()),
                    background);
            ProgressNotification started = progress.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertThat(started).as("the slow task reported that it started").isNotNull();
            assertThat(started.progressToken()).isEqualTo("slow-1");
            assertThat(started.message()).isEqualTo("started");
            Object id = transport.lastToolCallId("slow_task").orElseThrow();

            // the SDK client has no cancel method: send the notification through its transport
            transport.sendMessage(new JSONRPCNotification(McpSchema.JSONRPC_VERSION,
                    "notifications/cancelled", Map.of("requestId", id, "reason", "user pressed stop")))
                    .block(TIMEOUT);

            CallToolResult status = client.callTool(call("job_status", Map.of("job", "job-1")));
            assertThat(asMap(status.structuredContent()))
                    .containsEntry("job", "job-1")
                    .containsEntry("state", "cancelled")
                    .containsEntry("reason", "user pressed stop");

            // a cancelled request gets no response; the session stays usable
            assertThat(client.ping()).isNotNull();
            assertThat(transport.received(m -> m instanceof JSONRPCResponse r && id.equals(r.id()))).isEmpty();
            assertThat(slow).isNotDone();
            CallToolResult echo = client.callTool(call("echo", Map.of("text", "still here")));
            assertThat(asMap(echo.structuredContent())).containsEntry("text", "still here");
        }

        @Test
        void listsArePagedWithCursorsTheSdkFollows() {
            List<String> names = new ArrayList<>();
            List<Integer> pageSizes = new ArrayList<>();
            String cursor = McpSchema.FIRST_PAGE;
            do {
                ListToolsResult page = client.listTools(cursor);
                pageSizes.add(page.tools().size());
                page.tools().forEach(t -> names.add(t.name()));
                cursor = page.nextCursor();
                assertThat(pageSizes).as("pages").hasSizeLessThan(10);
            } while (cursor != null);

            assertThat(names).containsExactlyInAnyOrder("count_to", "ask_user", "open_link", "ask_model",
                    "list_roots", "slow_task", "job_status", "echo");
            assertThat(pageSizes).containsExactly(JavaSdkInteropServer.PAGE_SIZE, JavaSdkInteropServer.PAGE_SIZE, 2);
            // the SDK's own all-pages listing gives the same tools in the same order
            assertThat(client.listTools().tools()).extracting(Tool::name).containsExactlyElementsOf(names);

            assertThatThrownBy(() -> client.listTools("not-a-cursor"))
                    .isInstanceOfSatisfying(McpError.class, e ->
                            assertThat(e.getJsonRpcError().code()).isEqualTo(McpSchema.ErrorCodes.INVALID_PARAMS));
        }

        /** The messages read from {@code mark} up to and including the response to {@code id}. */
        private List<JSONRPCMessage> untilResponse(int mark, Object id) {
            List<JSONRPCMessage> all = transport.received();
            List<JSONRPCMessage> exchange = new ArrayList<>();
            for (JSONRPCMessage m : all.subList(mark, all.size())) {
                exchange.add(m);
                if (m instanceof JSONRPCResponse r && id.equals(r.id())) {
                    return exchange;
                }
            }
            throw new AssertionError("no response to " + id + " in " + exchange);
        }
    }

    /** The server logged no failure while serving the SDK (SLF4J's notes about the test classpath aside). */
    private static void assertNoServerErrors(String stderr) {
        List<String> problems = stderr.lines()
                .filter(line -> !line.startsWith("SLF4J("))
                .filter(line -> line.contains("Exception") || line.startsWith("SEVERE") || line.startsWith("WARNING"))
                .toList();
        assertThat(problems).as("server stderr:%n%s", stderr).isEmpty();
    }

    private static CallToolRequest call(String tool, Map<String, Object> arguments) {
        return CallToolRequest.builder(tool).arguments(arguments).build();
    }

    private static ReadResourceRequest read(String uri) {
        return ReadResourceRequest.builder(uri).build();
    }

    private static List<Map<String, Object>> params(List<JSONRPCMessage> messages, String method) {
        return messages.stream()
                .filter(m -> m instanceof JSONRPCNotification n && n.method().equals(method))
                .map(m -> asMap(((JSONRPCNotification) m).params()))
                .toList();
    }

    private static <T> List<T> take(BlockingQueue<T> queue, int count) throws InterruptedException {
        List<T> taken = new ArrayList<>();
        while (taken.size() < count) {
            T next = queue.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertThat(next).as("item %d of %d", taken.size() + 1, count).isNotNull();
            taken.add(next);
        }
        return taken;
    }

    private static Tool tool(List<Tool> tools, String name) {
        Predicate<Tool> named = t -> t.name().equals(name);
        return tools.stream().filter(named).findFirst().orElseThrow(() -> new AssertionError("no tool " + name));
    }

    private static String text(CallToolResult result) {
        assertThat(result.content()).isNotEmpty();
        assertThat(result.content().get(0)).isInstanceOf(TextContent.class);
        return ((TextContent) result.content().get(0)).text();
    }

    @SuppressWarnings("unchecked")
    private static List<Object> asList(Object value) {
        assertThat(value).isInstanceOf(List.class);
        return (List<Object>) value;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asMap(Object value) {
        assertThat(value).isInstanceOf(Map.class);
        return (Map<String, Object>) value;
    }
}
