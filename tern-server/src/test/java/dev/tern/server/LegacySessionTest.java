package dev.tern.server;

import static dev.tern.server.Fixtures.call;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.tern.protocol.ErrorCodes;
import dev.tern.protocol.Json;
import dev.tern.protocol.RequestId;
import dev.tern.protocol.model.LoggingLevel;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** A legacy (2025-11-25 and older) session on one channel: the initialize handshake and what follows. */
class LegacySessionTest {
    private static final String V = "2025-11-25";

    private final Fixtures fixtures = new Fixtures();
    private final List<AutoCloseable> toClose = new ArrayList<>();

    private McpServer start(McpServer.Builder builder) {
        McpServer server = builder.build();
        toClose.add(server);
        return server;
    }

    private Peer peer(McpServer server) {
        Peer p = new Peer(server);
        toClose.add(0, p);
        return p;
    }

    private Peer session(McpServer server) {
        Peer p = peer(server).checkedAgainst(V);
        p.initialize(V);
        return p;
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    private static int errorCode(JsonNode response) {
        assertThat(response.has("error")).as("expected an error: %s", response).isTrue();
        return response.at("/error/code").intValue();
    }

    private static JsonNode result(JsonNode response) {
        assertThat(response.has("result")).as("expected a result: %s", response).isTrue();
        return response.get("result");
    }

    // ------------------------------------------------------------------ initialize

    @ParameterizedTest
    @ValueSource(strings = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"})
    void initializeEchoesASupportedVersion(String version) {
        Peer p = peer(start(fixtures.server()));
        JsonNode r = result(p.initialize(version));
        assertThat(r.get("protocolVersion").stringValue()).isEqualTo(version);
    }

    @ParameterizedTest
    @ValueSource(strings = {"1999-01-01", "2099-12-31", "2026-07-28"})
    void initializeWithAVersionWeDoNotNegotiateCounterOffersOurNewestLegacyVersion(String version) {
        Peer p = peer(start(fixtures.server()));
        JsonNode r = result(p.initialize(version));
        assertThat(r.get("protocolVersion").stringValue()).isEqualTo("2025-11-25");
    }

    @Test
    void initializeResultDescribesTheServer() {
        Peer p = peer(start(fixtures.server().instructions("Use echo to test."))).checkedAgainst(V);
        JsonNode r = result(p.initialize(V));
        SpecSchemas.assertValid(V, "InitializeResult", r);
        assertThat(r.at("/serverInfo/name").stringValue()).isEqualTo("fixture");
        assertThat(r.at("/serverInfo/version").stringValue()).isEqualTo("1.2.3");
        assertThat(r.get("instructions").stringValue()).isEqualTo("Use echo to test.");
        JsonNode caps = r.get("capabilities");
        assertThat(caps.has("tools")).isTrue();
        assertThat(caps.has("resources")).isTrue();
        assertThat(caps.has("prompts")).isTrue();
        assertThat(caps.has("logging")).isTrue();
        assertThat(caps.has("completions")).isTrue();
        assertThat(r.has("resultType")).isFalse();
    }

    @Test
    void initializeWithoutAProtocolVersionIsInvalidParams() {
        Peer p = peer(start(fixtures.server()));
        ObjectNode params = Json.object();
        params.putObject("capabilities");
        params.putObject("clientInfo").put("name", "c").put("version", "1");
        assertThat(errorCode(p.request("initialize", params))).isEqualTo(ErrorCodes.INVALID_PARAMS);
        // the session did not open
        assertThat(errorCode(p.request("tools/list", null))).isEqualTo(ErrorCodes.INVALID_REQUEST);
    }

    @Test
    void requestsBeforeInitializeAreRefusedWithoutRunning() {
        Peer p = peer(start(fixtures.server()));
        assertThat(errorCode(p.request("tools/list", null))).isEqualTo(ErrorCodes.INVALID_REQUEST);
        assertThat(errorCode(p.request("tools/call", call("echo", "{\"text\":\"x\"}")))).isEqualTo(ErrorCodes.INVALID_REQUEST);
        assertThat(fixtures.echoCalls).hasValue(0);
    }

    @Test
    void pingWorksBeforeInitialize() {
        Peer p = peer(start(fixtures.server()));
        assertThat(result(p.request("ping", null))).isEqualTo(Json.object());
    }

    @Test
    void aSecondInitializeIsRefusedAndTheSessionKeepsItsVersion() {
        Peer p = session(start(fixtures.server()));
        ObjectNode params = Json.object().put("protocolVersion", "2025-03-26");
        params.putObject("capabilities");
        params.putObject("clientInfo").put("name", "c").put("version", "1");
        assertThat(errorCode(p.request("initialize", params))).isEqualTo(ErrorCodes.INVALID_REQUEST);
        // still 2025-11-25: batches stay refused
        p.raw("[{\"jsonrpc\":\"2.0\",\"id\":\"b1\",\"method\":\"ping\"}]");
        JsonNode refusal = p.await(m -> m.has("error") && m.get("id").isNull(), "batch refusal");
        assertThat(refusal.at("/error/code").intValue()).isEqualTo(ErrorCodes.INVALID_REQUEST);
    }

    @Test
    void pingAnswersAnEmptyResult() {
        Peer p = session(start(fixtures.server()));
        assertThat(result(p.request("ping", null))).isEqualTo(Json.object());
        assertThat(result(p.request("ping", Json.object()))).isEqualTo(Json.object());
    }

    @Test
    void unknownMethodsAreMethodNotFound() {
        Peer p = session(start(fixtures.server()));
        assertThat(errorCode(p.request("tools/destroy", null))).isEqualTo(ErrorCodes.METHOD_NOT_FOUND);
        assertThat(errorCode(p.request("server/discover", null))).isEqualTo(ErrorCodes.METHOD_NOT_FOUND);
        assertThat(errorCode(p.request("subscriptions/listen", null))).isEqualTo(ErrorCodes.METHOD_NOT_FOUND);
    }

    @Test
    void parseErrorsAreAnsweredWithIdNull() {
        Peer p = session(start(fixtures.server()));
        p.raw("{\"jsonrpc\":\"2.0\",");
        JsonNode e = p.await(m -> m.has("error"), "parse error");
        assertThat(e.get("id").isNull()).isTrue();
        assertThat(e.at("/error/code").intValue()).isEqualTo(ErrorCodes.PARSE_ERROR);
        // and the session goes on
        assertThat(result(p.request("ping", null))).isEqualTo(Json.object());
    }

    @Test
    void aMalformedNotificationGetsNoAnswer() {
        Peer p = session(start(fixtures.server()));
        int before = p.messages().size();
        p.raw("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":[1]}");
        p.raw("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":{}}}");
        p.raw("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/whatever\"}");
        assertThat(result(p.request("ping", null))).isNotNull();
        assertThat(p.messages()).hasSize(before + 1);
    }

    // ------------------------------------------------------------------ pagination

    @Test
    void listsArePagedWithOpaqueCursors() {
        McpServer.Builder b = McpServer.builder().pageSize(2);
        for (int i = 0; i < 5; i++) {
            int n = i;
            b.tool(ToolSpec.builder("t" + n).handler((ctx, a) -> null).build());
            b.prompt(PromptSpec.builder("p" + n).handler((ctx, a) -> null).build());
            b.resource(ResourceSpec.builder("test://r" + n, "r" + n).text("x").build());
            b.resourceTemplate(ResourceTemplateSpec.builder("test://t" + n + "/{id}", "t" + n).handler((c, u, v) -> null).build());
        }
        Peer p = session(start(b));
        assertThat(collect(p, "tools/list", "tools", "name")).containsExactly("t0", "t1", "t2", "t3", "t4");
        assertThat(collect(p, "prompts/list", "prompts", "name")).containsExactly("p0", "p1", "p2", "p3", "p4");
        assertThat(collect(p, "resources/list", "resources", "uri"))
                .containsExactly("test://r0", "test://r1", "test://r2", "test://r3", "test://r4");
        assertThat(collect(p, "resources/templates/list", "resourceTemplates", "name"))
                .containsExactly("t0", "t1", "t2", "t3", "t4");
    }

    private static List<String> collect(Peer p, String method, String member, String field) {
        List<String> all = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            ObjectNode params = cursor == null ? null : Json.object().put("cursor", cursor);
            JsonNode r = result(p.request(method, params));
            assertThat(r.get(member).size()).isLessThanOrEqualTo(2);
            r.get(member).forEach(item -> all.add(item.get(field).stringValue()));
            cursor = r.has("nextCursor") ? r.get("nextCursor").stringValue() : null;
            pages++;
        } while (cursor != null && pages < 10);
        assertThat(pages).isEqualTo(3);
        return all;
    }

    @Test
    void aBadCursorIsInvalidParams() {
        Peer p = session(start(fixtures.server()));
        assertThat(errorCode(p.request("tools/list", Json.object().put("cursor", "not-a-cursor")))).isEqualTo(ErrorCodes.INVALID_PARAMS);
        assertThat(errorCode(p.request("tools/list", Json.object().put("cursor", 3)))).isEqualTo(ErrorCodes.INVALID_PARAMS);
        assertThat(errorCode(p.request("prompts/list", Json.object().put("cursor", Cursors.encode(99))))).isEqualTo(ErrorCodes.INVALID_PARAMS);
    }

    @Test
    void toolsAreListedWithTheirSchemas() {
        Peer p = session(start(fixtures.server()));
        JsonNode tools = result(p.request("tools/list", null)).get("tools");
        JsonNode add = null;
        for (JsonNode t : tools) {
            if (t.get("name").stringValue().equals("add")) {
                add = t;
            }
            assertThat(t.at("/inputSchema/type").stringValue()).isEqualTo("object");
        }
        assertThat(add).isNotNull();
        assertThat(add.get("description").stringValue()).isEqualTo("Adds two integers");
        assertThat(add.at("/inputSchema/properties/a/type").stringValue()).isEqualTo("integer");
        assertThat(add.at("/inputSchema/properties/a/description").stringValue()).isEqualTo("first");
        assertThat(add.at("/outputSchema/properties/sum/type").stringValue()).isEqualTo("integer");
    }

    // ------------------------------------------------------------------ tools/call

    @Test
    void aToolCallReturnsItsResult() {
        Peer p = session(start(fixtures.server()));
        JsonNode r = result(p.request("tools/call", call("echo", "{\"text\":\"hi\"}")));
        assertThat(r.at("/content/0/type").stringValue()).isEqualTo("text");
        assertThat(r.at("/content/0/text").stringValue()).isEqualTo("hi");
        assertThat(r.path("isError").asBoolean(false)).isFalse();
    }

    @Test
    void structuredResultsCarryStructuredContentAndItsText() {
        Peer p = session(start(fixtures.server()));
        JsonNode r = result(p.request("tools/call", call("add", "{\"a\":2,\"b\":3}")));
        assertThat(r.at("/structuredContent/sum").intValue()).isEqualTo(5);
        assertThat(Json.mapper().readTree(r.at("/content/0/text").stringValue())).isEqualTo(r.get("structuredContent"));
    }

    @Test
    void argumentsThatBreakTheSchemaAreAToolErrorAndTheToolDoesNotRun() {
        Peer p = session(start(fixtures.server()));
        for (String args : new String[] {"{\"a\":2}", "{\"a\":\"2\",\"b\":3}", "{\"a\":2,\"b\":3,\"c\":4}", "{\"a\":2.5,\"b\":3}",
                "{\"a\":3000000000,\"b\":1}"}) {
            JsonNode r = result(p.request("tools/call", call("add", args)));
            assertThat(r.get("isError").booleanValue()).as(args).isTrue();
            assertThat(r.at("/content/0/text").stringValue()).as(args).contains("add");
        }
        JsonNode missing = result(p.request("tools/call", call("echo", "{}")));
        assertThat(missing.get("isError").booleanValue()).isTrue();
        assertThat(missing.at("/content/0/text").stringValue()).contains("text");
        JsonNode none = result(p.request("tools/call", call("echo", null)));
        assertThat(none.get("isError").booleanValue()).isTrue();
        assertThat(fixtures.addCalls).hasValue(0);
        assertThat(fixtures.echoCalls).hasValue(0);
    }

    @Test
    void anUnknownToolIsInvalidParams() {
        Peer p = session(start(fixtures.server()));
        JsonNode e = p.request("tools/call", call("nope", "{}"));
        assertThat(errorCode(e)).isEqualTo(ErrorCodes.INVALID_PARAMS);
        assertThat(e.at("/error/message").stringValue()).contains("nope");
    }

    @Test
    void malformedCallParamsAreInvalidParams() {
        Peer p = session(start(fixtures.server()));
        assertThat(errorCode(p.request("tools/call", Json.object()))).isEqualTo(ErrorCodes.INVALID_PARAMS);
        assertThat(errorCode(p.request("tools/call", Json.object().put("name", 5)))).isEqualTo(ErrorCodes.INVALID_PARAMS);
        ObjectNode arrayArgs = Json.object().put("name", "echo");
        arrayArgs.putArray("arguments").add("hi");
        assertThat(errorCode(p.request("tools/call", arrayArgs))).isEqualTo(ErrorCodes.INVALID_PARAMS);
        assertThat(errorCode(p.request("tools/call", null))).isEqualTo(ErrorCodes.INVALID_PARAMS);
    }

    @Test
    void aToolExceptionIsAToolErrorWithItsMessage() {
        Peer p = session(start(fixtures.server()));
        JsonNode r = result(p.request("tools/call", call("fail_tool", null)));
        assertThat(r.get("isError").booleanValue()).isTrue();
        assertThat(r.at("/content/0/text").stringValue()).isEqualTo("The city 'Atlantis' is unknown; try a real city");
    }

    @Test
    void anyOtherExceptionIsAToolErrorWithoutItsDetails() {
        Peer p = session(start(fixtures.server()));
        JsonNode response = p.request("tools/call", call("crash", null));
        JsonNode r = result(response);
        assertThat(r.get("isError").booleanValue()).isTrue();
        String text = response.toString();
        assertThat(text).doesNotContain("hunter2").doesNotContain("10.0.0.1").doesNotContain("IllegalStateException")
                .doesNotContain("at dev.tern");
        assertThat(r.at("/content/0/text").stringValue()).contains("crash");
        // the server goes on
        assertThat(result(p.request("tools/call", call("echo", "{\"text\":\"still here\"}"))).at("/content/0/text").stringValue())
                .isEqualTo("still here");
    }

    @Test
    void anIdInUseByARequestInFlightIsRefused() throws Exception {
        Peer p = session(start(fixtures.server()));
        RequestId id = RequestId.of("dup");
        p.send(id, "tools/call", call("sleep", null));
        fixtures.sleeper.awaitEntered();
        JsonNode second = p.response(p.send(id, "ping", null));
        assertThat(errorCode(second)).isEqualTo(ErrorCodes.INVALID_REQUEST);
        p.cancel(id, "done");
        fixtures.sleeper.awaitFinished();
    }

    // ------------------------------------------------------------------ progress

    @Test
    void progressIsSentOnlyIncreasingAndWithTheClientsToken() {
        Peer p = session(start(fixtures.server()));
        ObjectNode params = call("progress", null);
        params.putObject("_meta").put("progressToken", "tok-1");
        RequestId id = p.send("tools/call", params);
        p.result(id);
        List<JsonNode> progress = p.relatedTo(id).stream().map(Peer.Sent::message)
                .filter(m -> "notifications/progress".equals(m.path("method").asString(""))).toList();
        assertThat(progress).extracting(m -> m.at("/params/progress").doubleValue()).containsExactly(1.0, 2.0, 2.5, 3.0);
        assertThat(progress).allSatisfy(m -> {
            assertThat(m.at("/params/progressToken").isString()).isTrue();
            assertThat(m.at("/params/progressToken").stringValue()).isEqualTo("tok-1");
        });
        assertThat(progress.get(0).at("/params/total").doubleValue()).isEqualTo(3.0);
        assertThat(progress.get(0).at("/params/message").stringValue()).isEqualTo("one");
        assertThat(progress.get(2).at("/params").has("total")).isFalse();
        // everything about the request came before its response
        List<Peer.Sent> related = p.relatedTo(id);
        assertThat(Peer.isResponse(related.get(related.size() - 1).message())).isTrue();
    }

    @Test
    void anIntegerProgressTokenStaysAnInteger() {
        Peer p = session(start(fixtures.server()));
        ObjectNode params = call("progress", null);
        params.putObject("_meta").put("progressToken", 7);
        RequestId id = p.send("tools/call", params);
        p.result(id);
        JsonNode first = p.notifications("notifications/progress").get(0);
        assertThat(first.at("/params/progressToken").isIntegralNumber()).isTrue();
        assertThat(first.at("/params/progressToken").intValue()).isEqualTo(7);
    }

    @Test
    void noProgressWithoutAToken() {
        Peer p = session(start(fixtures.server()));
        p.result(p.send("tools/call", call("progress", null)));
        ObjectNode bad = call("progress", null);
        bad.putObject("_meta").put("progressToken", 1.5);
        p.result(p.send("tools/call", bad));
        assertThat(p.notifications("notifications/progress")).isEmpty();
    }

    // ------------------------------------------------------------------ logging

    private static List<String> loggedLevels(Peer p, RequestId id) {
        return p.relatedTo(id).stream().map(Peer.Sent::message)
                .filter(m -> "notifications/message".equals(m.path("method").asString("")))
                .map(m -> m.at("/params/level").stringValue()).toList();
    }

    @Test
    void setLevelFiltersLogMessages() {
        Peer p = session(start(fixtures.server().defaultLogLevel(LoggingLevel.DEBUG)));
        RequestId all = p.send("tools/call", call("log", null));
        p.result(all);
        assertThat(loggedLevels(p, all)).containsExactly("debug", "info", "notice", "warning", "error", "critical", "alert",
                "emergency");
        assertThat(result(p.request("logging/setLevel", Json.object().put("level", "warning")))).isEqualTo(Json.object());
        RequestId some = p.send("tools/call", call("log", null));
        p.result(some);
        assertThat(loggedLevels(p, some)).containsExactly("warning", "error", "critical", "alert", "emergency");
        JsonNode message = p.notifications("notifications/message").get(0);
        assertThat(message.at("/params/logger").stringValue()).isEqualTo("test-logger");
        assertThat(message.at("/params/data/level").stringValue()).isEqualTo("debug");
    }

    @Test
    void theDefaultLevelAppliesBeforeSetLevel() {
        Peer p = session(start(fixtures.server().defaultLogLevel(LoggingLevel.ERROR)));
        RequestId id = p.send("tools/call", call("log", null));
        p.result(id);
        assertThat(loggedLevels(p, id)).containsExactly("error", "critical", "alert", "emergency");
    }

    @Test
    void anUnknownLevelIsInvalidParams() {
        Peer p = session(start(fixtures.server()));
        assertThat(errorCode(p.request("logging/setLevel", Json.object().put("level", "loud")))).isEqualTo(ErrorCodes.INVALID_PARAMS);
        assertThat(errorCode(p.request("logging/setLevel", Json.object()))).isEqualTo(ErrorCodes.INVALID_PARAMS);
        assertThat(errorCode(p.request("logging/setLevel", Json.object().put("level", "WARNING")))).isEqualTo(ErrorCodes.INVALID_PARAMS);
    }

    // ------------------------------------------------------------------ cancellation and deadlines

    @Test
    void cancellationInterruptsTheHandlerAndNothingIsSentForTheRequest() throws Exception {
        Peer p = session(start(fixtures.server()));
        RequestId id = p.send("tools/call", call("sleep", null));
        fixtures.sleeper.awaitEntered();
        p.cancel(id, "user pressed stop");
        fixtures.sleeper.awaitFinished();
        assertThat(fixtures.sleeper.interrupted).isTrue();
        assertThat(fixtures.sleeper.sawCancelled).isTrue();
        assertThat(fixtures.sleeper.reason).isEqualTo("user pressed stop");
        assertThat(p.channel().awaitIdle(Duration.ofSeconds(20))).isTrue();
        assertThat(p.relatedTo(id)).isEmpty();
    }

    @Test
    void aHandlerThatFinishesAfterCancellationSendsNothing() throws Exception {
        Peer p = session(start(fixtures.server().defaultLogLevel(LoggingLevel.DEBUG)));
        ObjectNode params = call("poll", null);
        params.putObject("_meta").put("progressToken", "t");
        RequestId id = p.send("tools/call", params);
        fixtures.poller.awaitEntered();
        p.cancel(id, null);
        fixtures.poller.awaitFinished();
        assertThat(fixtures.poller.sawCancelled).isTrue();
        assertThat(p.relatedTo(id)).isEmpty();
        assertThat(p.notifications("notifications/progress")).isEmpty();
        assertThat(p.notifications("notifications/message")).isEmpty();
    }

    @Test
    void cancellingAnUnknownOrFinishedRequestIsIgnored() {
        Peer p = session(start(fixtures.server()));
        RequestId done = p.send("tools/call", call("echo", "{\"text\":\"x\"}"));
        p.result(done);
        int before = p.messages().size();
        p.cancel(done, "late");
        p.cancel(RequestId.of(424242), "unknown");
        p.cancel(RequestId.of("nope"), "unknown");
        assertThat(result(p.request("ping", null))).isNotNull();
        assertThat(p.messages()).hasSize(before + 1);
    }

    @Test
    void aHandlerPastItsDeadlineIsCancelledAndReportedAsAToolError() throws Exception {
        Peer p = session(start(fixtures.server().handlerTimeout(Duration.ofMillis(200))));
        RequestId id = p.send("tools/call", call("sleep", null));
        JsonNode r = p.result(id);
        assertThat(r.get("isError").booleanValue()).isTrue();
        assertThat(r.at("/content/0/text").stringValue()).contains("sleep");
        fixtures.sleeper.awaitFinished();
        assertThat(fixtures.sleeper.interrupted).isTrue();
        assertThat(fixtures.sleeper.sawCancelled).isTrue();
        assertThat(p.responsesTo(id)).hasSize(1);
    }

    @Test
    void closingTheChannelCancelsRequestsInFlight() throws Exception {
        McpServer server = start(fixtures.server());
        Peer p = new Peer(server);
        p.initialize(V);
        RequestId id = p.send("tools/call", call("sleep", null));
        fixtures.sleeper.awaitEntered();
        assertThat(p.channel().inFlight()).isEqualTo(1);
        p.close();
        fixtures.sleeper.awaitFinished();
        assertThat(fixtures.sleeper.sawCancelled).isTrue();
        assertThat(p.relatedTo(id)).isEmpty();
        assertThat(server.channelCount()).isZero();
    }

    @Test
    void closingASessionCancelsTheTasksItStartedAndNoOtherSessions() throws Exception {
        java.util.Map<String, Fixtures.Blocker> blockers = java.util.Map.of("a", new Fixtures.Blocker(), "b",
                new Fixtures.Blocker());
        ObjectNode schema = (ObjectNode) Json.mapper().readTree(
                "{\"type\":\"object\",\"properties\":{\"who\":{\"type\":\"string\"}},\"required\":[\"who\"]}");
        McpServer server = start(McpServer.builder().tool(ToolSpec.builder("nap").taskSupport(TaskSupport.OPTIONAL)
                .inputSchema(schema)
                .handler((ctx, args) -> Fixtures.sleepUntilInterrupted(blockers.get(args.path("who").asString("")), ctx))
                .build()));
        Peer a = new Peer(server);
        a.initialize(V);
        Peer b = peer(server);
        b.initialize(V);
        for (var peerAndWho : java.util.List.of(java.util.Map.entry(a, "a"), java.util.Map.entry(b, "b"))) {
            ObjectNode params = call("nap", "{\"who\":\"" + peerAndWho.getValue() + "\"}");
            params.putObject("task").put("ttl", 60_000);
            JsonNode created = result(peerAndWho.getKey().request("tools/call", params));
            assertThat(created.at("/task/taskId").asString("")).as(created.toString()).isNotEmpty();
            blockers.get(peerAndWho.getValue()).awaitEntered();
        }

        a.close();

        blockers.get("a").awaitFinished();
        assertThat(blockers.get("a").sawCancelled).isTrue();
        assertThat(blockers.get("b").exited.getCount()).isEqualTo(1);
        b.close();
        blockers.get("b").awaitFinished();
    }

    // ------------------------------------------------------------------ list_changed and subscriptions

    @Test
    void listChangesWithinTheWindowAreCoalescedIntoOneNotification() {
        McpServer server = start(fixtures.server().listChangedDelay(Duration.ofSeconds(1)));
        Peer p = session(server);
        Peer uninitialized = peer(server);
        server.addTool(ToolSpec.builder("n1").handler((c, a) -> null).build());
        server.addTool(ToolSpec.builder("n2").handler((c, a) -> null).build());
        server.removeTool("n1");
        server.addTool(ToolSpec.builder("n3").handler((c, a) -> null).build());
        p.awaitNotifications("notifications/tools/list_changed", 1);
        // one more change after the window: exactly one more notification, nothing left over from the burst
        server.addTool(ToolSpec.builder("n4").handler((c, a) -> null).build());
        p.awaitNotifications("notifications/tools/list_changed", 2);
        assertThat(p.notifications("notifications/tools/list_changed")).hasSize(2);
        assertThat(p.notifications("notifications/prompts/list_changed")).isEmpty();
        assertThat(p.notifications("notifications/resources/list_changed")).isEmpty();
        // a channel without a session and without a listen stream hears nothing
        assertThat(uninitialized.messages()).isEmpty();
        JsonNode names = result(p.request("tools/list", null)).get("tools");
        List<String> listed = new ArrayList<>();
        names.forEach(t -> listed.add(t.get("name").stringValue()));
        assertThat(listed).contains("n2", "n3", "n4").doesNotContain("n1");
    }

    @Test
    void eachKindOfListChangeHasItsNotification() {
        McpServer server = start(fixtures.server().listChangedDelay(Duration.ofMillis(1)));
        Peer p = session(server);
        server.addPrompt(PromptSpec.builder("np").handler((c, a) -> null).build());
        p.awaitNotification("notifications/prompts/list_changed");
        server.addResource(ResourceSpec.builder("test://new", "new").text("n").build());
        p.awaitNotification("notifications/resources/list_changed");
        assertThat(server.removeTool("never-added")).isFalse();
        assertThat(server.removePrompt("np")).isTrue();
        p.awaitNotifications("notifications/prompts/list_changed", 2);
    }

    @Test
    void subscribersHearAboutUpdatesOfTheirResourcesOnly() {
        McpServer server = start(fixtures.server());
        Peer p = session(server);
        Peer other = session(server);
        assertThat(result(p.request("resources/subscribe", Json.object().put("uri", "test://watched")))).isEqualTo(Json.object());
        server.notifyResourceUpdated("test://watched");
        List<JsonNode> updates = p.notifications("notifications/resources/updated");
        assertThat(updates).hasSize(1);
        assertThat(updates.get(0).at("/params/uri").stringValue()).isEqualTo("test://watched");
        assertThat(other.notifications("notifications/resources/updated")).isEmpty();
        server.notifyResourceUpdated("test://static-text");
        assertThat(p.notifications("notifications/resources/updated")).hasSize(1);
        assertThat(result(p.request("resources/unsubscribe", Json.object().put("uri", "test://watched")))).isEqualTo(Json.object());
        server.notifyResourceUpdated("test://watched");
        assertThat(p.notifications("notifications/resources/updated")).hasSize(1);
        assertThat(errorCode(p.request("resources/subscribe", Json.object()))).isEqualTo(ErrorCodes.INVALID_PARAMS);
    }

    // ------------------------------------------------------------------ resources, prompts, completion

    @Test
    void readingResourcesAndTemplates() {
        Peer p = session(start(fixtures.server()));
        JsonNode text = result(p.request("resources/read", Json.object().put("uri", "test://static-text")));
        assertThat(text.at("/contents/0/text").stringValue()).isEqualTo("static");
        assertThat(text.at("/contents/0/uri").stringValue()).isEqualTo("test://static-text");
        JsonNode templ = result(p.request("resources/read", Json.object().put("uri", "test://template/42/data")));
        assertThat(templ.at("/contents/0/text").stringValue()).isEqualTo("{\"id\":\"42\"}");
        assertThat(text.has("resultType")).isFalse();
        assertThat(text.has("ttlMs")).isFalse();
    }

    @Test
    void anUnknownResourceIsResourceNotFoundWithItsUri() {
        Peer p = session(start(fixtures.server()));
        JsonNode e = p.request("resources/read", Json.object().put("uri", "file:///nonexistent.txt"));
        assertThat(errorCode(e)).isEqualTo(ErrorCodes.RESOURCE_NOT_FOUND);
        assertThat(e.at("/error/data/uri").stringValue()).isEqualTo("file:///nonexistent.txt");
    }

    @Test
    void promptsAndCompletion() {
        Peer p = session(start(fixtures.server()));
        ObjectNode get = Json.object().put("name", "review");
        get.putObject("arguments").put("code", "x = 1");
        JsonNode r = result(p.request("prompts/get", get));
        assertThat(r.at("/messages/0/content/text").stringValue()).isEqualTo("Review: x = 1");
        assertThat(errorCode(p.request("prompts/get", Json.object().put("name", "review")))).isEqualTo(ErrorCodes.INVALID_PARAMS);
        assertThat(errorCode(p.request("prompts/get", Json.object().put("name", "nope")))).isEqualTo(ErrorCodes.INVALID_PARAMS);
        ObjectNode badArgs = Json.object().put("name", "review");
        badArgs.putObject("arguments").put("code", 1);
        assertThat(errorCode(p.request("prompts/get", badArgs))).isEqualTo(ErrorCodes.INVALID_PARAMS);
        ObjectNode complete = Json.object();
        complete.putObject("ref").put("type", "ref/prompt").put("name", "review");
        complete.putObject("argument").put("name", "language").put("value", "ja");
        JsonNode c = result(p.request("completion/complete", complete));
        assertThat(c.at("/completion/values").toString()).isEqualTo("[\"java\",\"javascript\"]");
        assertThat(c.at("/completion/total").intValue()).isEqualTo(2);
        assertThat(c.at("/completion/hasMore").booleanValue()).isFalse();
        ObjectNode templ = Json.object();
        templ.putObject("ref").put("type", "ref/resource").put("uri", "test://template/{id}/data");
        templ.putObject("argument").put("name", "id").put("value", "12");
        assertThat(result(p.request("completion/complete", templ)).at("/completion/values").toString()).isEqualTo("[\"12\",\"123\"]");
    }

    // ------------------------------------------------------------------ server-to-client requests

    @Test
    void elicitationAsksTheClientAndWaitsForItsAnswer() {
        ObjectNode caps = Json.object();
        caps.putObject("elicitation");
        McpServer server = start(fixtures.server());
        Peer p = peer(server).checkedAgainst(V).answering(request -> {
            String message = request.at("/params/message").stringValue();
            return message.startsWith("Your name")
                    ? Json.mapper().readTree("{\"action\":\"accept\",\"content\":{\"name\":\"Octo\"}}")
                    : Json.mapper().readTree("{\"action\":\"accept\",\"content\":{\"ok\":true}}");
        });
        p.initialize(V, caps);
        RequestId id = p.send("tools/call", call("greet", "{\"greeting\":\"Hi\"}"));
        JsonNode r = p.result(id);
        assertThat(r.at("/content/0/text").stringValue()).isEqualTo("Hi, Octo");
        List<JsonNode> asks = p.relatedTo(id).stream().map(Peer.Sent::message).filter(m -> m.has("method") && m.has("id")).toList();
        assertThat(asks).hasSize(2);
        for (JsonNode ask : asks) {
            assertThat(ask.get("method").stringValue()).isEqualTo("elicitation/create");
            SpecSchemas.assertValid(V, "ElicitRequest", ask);
            assertThat(ask.at("/params/requestedSchema/type").stringValue()).isEqualTo("object");
        }
        assertThat(asks.get(0).get("id")).isNotEqualTo(asks.get(1).get("id"));
    }

    @Test
    void anUnansweredElicitationTimesOutAndIsCancelledAtTheClient() {
        ObjectNode caps = Json.object();
        caps.putObject("elicitation");
        Peer p = peer(start(fixtures.server().clientRequestTimeout(Duration.ofMillis(200))));
        p.initialize(V, caps);
        RequestId id = p.send("tools/call", call("greet", null));
        JsonNode e = p.response(id);
        assertThat(errorCode(e)).isEqualTo(ErrorCodes.INTERNAL_ERROR);
        JsonNode ask = p.await(m -> "elicitation/create".equals(m.path("method").asString("")), "elicitation");
        JsonNode cancelled = p.awaitNotification("notifications/cancelled");
        assertThat(cancelled.at("/params/requestId")).isEqualTo(ask.get("id"));
    }

    @Test
    void cancellingARequestWhileItWaitsForTheClientCancelsTheQuestionToo() throws Exception {
        ObjectNode caps = Json.object();
        caps.putObject("elicitation");
        Peer p = peer(start(fixtures.server()));
        p.initialize(V, caps);
        RequestId id = p.send("tools/call", call("greet", null));
        JsonNode ask = p.await(m -> "elicitation/create".equals(m.path("method").asString("")), "elicitation");
        p.cancel(id, "stop");
        JsonNode cancelled = p.awaitNotification("notifications/cancelled");
        assertThat(cancelled.at("/params/requestId")).isEqualTo(ask.get("id"));
        assertThat(p.channel().awaitIdle(Duration.ofSeconds(20))).isTrue();
        assertThat(p.responsesTo(id)).isEmpty();
        // a late answer to the cancelled question is dropped quietly
        p.raw("{\"jsonrpc\":\"2.0\",\"id\":" + ask.get("id") + ",\"result\":{\"action\":\"accept\",\"content\":{\"name\":\"x\"}}}");
        assertThat(result(p.request("ping", null))).isNotNull();
        assertThat(p.responsesTo(id)).isEmpty();
    }

    @Test
    void taskSupportIsListedOnlyWhereTheRevisionHasIt() {
        McpServer server = start(McpServer.builder()
                .tool(ToolSpec.builder("tasky").taskSupport(TaskSupport.OPTIONAL).handler((c, a) -> null).build()));
        Peer current = peer(server);
        current.initialize("2025-11-25");
        assertThat(result(current.request("tools/list", null)).at("/tools/0/execution/taskSupport").stringValue()).isEqualTo("optional");
        Peer older = peer(server);
        older.initialize("2025-06-18");
        assertThat(result(older.request("tools/list", null)).at("/tools/0").has("execution")).isFalse();
        Peer modern = peer(server);
        assertThat(result(modern.modernRequest("tools/list", null)).at("/tools/0").has("execution")).isFalse();
    }

    @Test
    void samplingAnswersWithSeveralContentBlocksReachTheHandler() {
        ObjectNode caps = Json.object();
        caps.putObject("sampling").putObject("tools");
        McpServer server = start(McpServer.builder().tool(ToolSpec.builder("think").handler((ctx, a) -> {
            ObjectNode params = (ObjectNode) Json.mapper().readTree("{\"messages\":[{\"role\":\"user\",\"content\":"
                    + "{\"type\":\"text\",\"text\":\"Weather?\"}}],\"maxTokens\":50,\"tools\":[{\"name\":\"w\","
                    + "\"inputSchema\":{\"type\":\"object\"}}]}");
            var answer = ctx.sample(params);
            var blocks = ((dev.tern.protocol.model.ContentList) answer.content()).items();
            var use = (dev.tern.protocol.model.ToolUseContent) blocks.get(0);
            return dev.tern.protocol.model.CallToolResult.text(blocks.size() + " blocks, first calls " + use.name()
                    + " for " + use.input().get("city").stringValue());
        }).build()));
        Peer p = peer(server).checkedAgainst(V).answering(request -> Json.mapper().readTree("{\"role\":\"assistant\","
                + "\"content\":[{\"type\":\"tool_use\",\"id\":\"c1\",\"name\":\"w\",\"input\":{\"city\":\"Paris\"}},"
                + "{\"type\":\"text\",\"text\":\"checking\"}],\"model\":\"m\",\"stopReason\":\"toolUse\"}"));
        p.initialize(V, caps);
        JsonNode r = result(p.request("tools/call", call("think", null)));
        assertThat(r.at("/content/0/text").stringValue()).isEqualTo("2 blocks, first calls w for Paris");
    }

    @Test
    void failuresOutsideToolsAreSanitizedInternalErrors() {
        McpServer server = start(McpServer.builder()
                .resource(ResourceSpec.builder("test://broken", "broken").handler((c, u, v) -> {
                    throw new IllegalStateException("password=hunter2");
                }).build())
                .prompt(PromptSpec.builder("broken").handler((c, a) -> {
                    throw new java.io.IOException("/etc/secret.key unreadable");
                }).build()));
        Peer p = session(server);
        JsonNode read = p.request("resources/read", Json.object().put("uri", "test://broken"));
        assertThat(errorCode(read)).isEqualTo(ErrorCodes.INTERNAL_ERROR);
        assertThat(read.toString()).doesNotContain("hunter2").doesNotContain("IllegalStateException");
        JsonNode prompt = p.request("prompts/get", Json.object().put("name", "broken"));
        assertThat(errorCode(prompt)).isEqualTo(ErrorCodes.INTERNAL_ERROR);
        assertThat(prompt.toString()).doesNotContain("secret").doesNotContain("IOException");
    }

    @Test
    void anMcpExceptionFromAToolIsAProtocolErrorWithItsCode() {
        McpServer server = start(McpServer.builder().tool(ToolSpec.builder("strict").handler((c, a) -> {
            throw dev.tern.protocol.McpException.invalidParams("Invalid params: widget must be blue");
        }).build()));
        Peer p = session(server);
        JsonNode e = p.request("tools/call", call("strict", null));
        assertThat(errorCode(e)).isEqualTo(ErrorCodes.INVALID_PARAMS);
        assertThat(e.at("/error/message").stringValue()).isEqualTo("Invalid params: widget must be blue");
    }

    // ------------------------------------------------------------------ batches (2025-03-26 only)

    private static final String BATCH = "[{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"ping\"},"
            + "{\"jsonrpc\":\"2.0\",\"id\":\"b\",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"x\"}}},"
            + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/whatever\"}]";

    @Test
    void aTwentyFiveMarchTwentySixSessionAnswersABatchWithOneArray() {
        Peer p = peer(start(fixtures.server()));
        p.initialize("2025-03-26");
        p.raw(BATCH);
        JsonNode answer = p.awaitBatch();
        assertThat(answer.isArray()).isTrue();
        assertThat(answer).hasSize(2);
        List<String> ids = new ArrayList<>();
        answer.forEach(m -> ids.add(m.get("id").stringValue()));
        assertThat(ids).containsExactlyInAnyOrder("a", "b");
        for (JsonNode m : answer) {
            if (m.get("id").stringValue().equals("b")) {
                assertThat(m.at("/result/content/0/text").stringValue()).isEqualTo("x");
            }
        }
        assertThat(fixtures.echoCalls).hasValue(1);
    }

    @Test
    void batchItemsAreCheckedOneByOne() {
        Peer p = peer(start(fixtures.server()));
        p.initialize("2025-03-26");
        p.raw("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},{\"jsonrpc\":\"1.0\",\"id\":2,\"method\":\"ping\"},"
                + "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-03-26\"}}]");
        JsonNode answer = p.awaitBatch();
        assertThat(answer).hasSize(3);
        for (JsonNode m : answer) {
            int id = m.get("id").intValue();
            if (id == 1) {
                assertThat(m.has("result")).isTrue();
            } else {
                assertThat(m.at("/error/code").intValue()).as("item %s", id).isEqualTo(ErrorCodes.INVALID_REQUEST);
            }
        }
    }

    @Test
    void aBatchOfNotificationsGetsNoAnswer() {
        Peer p = peer(start(fixtures.server()));
        p.initialize("2025-03-26");
        int before = p.messages().size();
        p.raw("[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/a\"},{\"jsonrpc\":\"2.0\",\"method\":\"notifications/b\"}]");
        assertThat(result(p.request("ping", null))).isNotNull();
        assertThat(p.sent()).hasSize(before + 1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"2025-11-25", "2025-06-18", "2024-11-05"})
    void otherRevisionsRefuseTheWholeBatchAndRunNothing(String version) {
        Peer p = peer(start(fixtures.server()));
        p.initialize(version);
        p.raw(BATCH);
        JsonNode refusal = p.await(m -> m.has("error"), "batch refusal");
        assertThat(refusal.get("id").isNull()).isTrue();
        assertThat(refusal.at("/error/code").intValue()).isEqualTo(ErrorCodes.INVALID_REQUEST);
        assertThat(result(p.request("ping", null))).isNotNull();
        assertThat(fixtures.echoCalls).hasValue(0);
        assertThat(p.sent().stream().filter(Peer.Sent::batch)).isEmpty();
    }

    @Test
    void aBatchBeforeInitializeIsRefused() {
        Peer p = peer(start(fixtures.server()));
        p.raw(BATCH);
        JsonNode refusal = p.await(m -> m.has("error"), "batch refusal");
        assertThat(refusal.at("/error/code").intValue()).isEqualTo(ErrorCodes.INVALID_REQUEST);
        assertThat(fixtures.echoCalls).hasValue(0);
    }

    @Test
    void aHandlerThatKeepsItsContextCannotSendAfterTheResponse() {
        java.util.concurrent.atomic.AtomicReference<RequestContext> kept = new java.util.concurrent.atomic.AtomicReference<>();
        McpServer server = start(McpServer.builder().defaultLogLevel(LoggingLevel.DEBUG)
                .tool(ToolSpec.builder("leak").handler((ctx, a) -> {
                    kept.set(ctx);
                    ctx.progress(1, null, null);
                    return dev.tern.protocol.model.CallToolResult.text("done");
                }).build()));
        Peer p = session(server);
        ObjectNode params = call("leak", null);
        params.putObject("_meta").put("progressToken", "t");
        RequestId id = p.send("tools/call", params);
        p.result(id);
        assertThat(p.notifications("notifications/progress")).hasSize(1);
        kept.get().progress(2, null, "late");
        kept.get().log(LoggingLevel.EMERGENCY, "late");
        assertThat(p.notifications("notifications/progress")).hasSize(1);
        assertThat(p.notifications("notifications/message")).isEmpty();
    }
}
