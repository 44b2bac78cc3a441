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
import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.ReadResourceResult;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** 2026-07-28 requests: stateless, with the per-request _meta, served on a channel without initialize. */
class ModernEraTest {
    private static final String M = Peer.MODERN;
    private static final int MISSING_CAPABILITY = -32021;

    private final Fixtures fixtures = new Fixtures();
    private final List<AutoCloseable> toClose = new ArrayList<>();

    private McpServer start(McpServer.Builder builder) {
        McpServer server = builder.build();
        toClose.add(server);
        return server;
    }

    private Peer peer(McpServer server) {
        Peer p = new Peer(server).checkedAgainst(M);
        toClose.add(0, p);
        return p;
    }

    private Peer peer() {
        return peer(start(fixtures.server()));
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

    private static ObjectNode elicitation() {
        ObjectNode caps = Json.object();
        caps.putObject("elicitation");
        return caps;
    }

    // ------------------------------------------------------------------ discovery and per-request metadata

    @Test
    void discoverDescribesTheServerAndIsCacheable() {
        Peer p = peer(start(fixtures.server().instructions("hello")));
        JsonNode r = result(p.modernRequest("server/discover", null));
        SpecSchemas.assertValid(M, "DiscoverResult", r);
        assertThat(r.get("resultType").stringValue()).isEqualTo("complete");
        List<String> versions = new ArrayList<>();
        r.get("supportedVersions").forEach(v -> versions.add(v.stringValue()));
        assertThat(versions).contains("2026-07-28");
        assertThat(r.at("/capabilities/tools").isObject()).isTrue();
        assertThat(r.at("/capabilities/resources").isObject()).isTrue();
        assertThat(r.at("/capabilities/prompts").isObject()).isTrue();
        assertThat(r.get("ttlMs").canConvertToLong()).isTrue();
        assertThat(r.get("ttlMs").longValue()).isNotNegative();
        assertThat(r.get("cacheScope").stringValue()).isIn("public", "private");
        assertThat(r.at("/_meta/io.modelcontextprotocol~1serverInfo/name").stringValue()).isEqualTo("fixture");
        assertThat(r.get("instructions").stringValue()).isEqualTo("hello");
    }

    @Test
    void theFirstMessageMayBeAnyRequest() {
        Peer p = peer();
        JsonNode r = result(p.modernRequest("tools/call", call("echo", "{\"text\":\"first\"}")));
        assertThat(r.at("/content/0/text").stringValue()).isEqualTo("first");
    }

    @Test
    void missingClientCapabilitiesIsInvalidParamsAndNothingRuns() {
        Peer p = peer();
        ObjectNode params = call("echo", "{\"text\":\"x\"}");
        params.putObject("_meta").put(Peer.META_VERSION, M);
        assertThat(errorCode(p.request("tools/call", params))).isEqualTo(ErrorCodes.INVALID_PARAMS);
        ObjectNode wrongType = call("echo", "{\"text\":\"x\"}");
        wrongType.putObject("_meta").put(Peer.META_VERSION, M).put(Peer.META_CAPABILITIES, "all");
        assertThat(errorCode(p.request("tools/call", wrongType))).isEqualTo(ErrorCodes.INVALID_PARAMS);
        ObjectNode discover = Json.object();
        discover.putObject("_meta").put(Peer.META_VERSION, M);
        assertThat(errorCode(p.request("server/discover", discover))).isEqualTo(ErrorCodes.INVALID_PARAMS);
        assertThat(fixtures.echoCalls).hasValue(0);
    }

    @Test
    void emptyClientCapabilitiesAreEnough() {
        Peer p = peer();
        ObjectNode params = Json.object();
        params.putObject("_meta").put(Peer.META_VERSION, M).putObject(Peer.META_CAPABILITIES);
        assertThat(result(p.request("tools/list", params)).get("tools").isArray()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"1900-01-01", "2026-13-01", "2025-11-25", "2025-06-18", "draft"})
    void anUnsupportedVersionIsRefusedNamingTheSupportedOnes(String version) {
        Peer p = peer();
        ObjectNode params = Json.object();
        params.putObject("_meta").put(Peer.META_VERSION, version).putObject(Peer.META_CAPABILITIES);
        RequestId id = p.send("tools/list", params);
        JsonNode e = p.response(id);
        assertThat(errorCode(e)).isEqualTo(ErrorCodes.UNSUPPORTED_PROTOCOL_VERSION);
        SpecSchemas.assertValid(M, "UnsupportedProtocolVersionError", e);
        assertThat(e.at("/error/data/requested").stringValue()).isEqualTo(version);
        List<String> supported = new ArrayList<>();
        e.at("/error/data/supported").forEach(v -> supported.add(v.stringValue()));
        assertThat(supported).contains("2026-07-28");
    }

    @Test
    void anUnsupportedVersionWinsOverMissingCapabilities() {
        Peer p = peer();
        ObjectNode params = Json.object();
        params.putObject("_meta").put(Peer.META_VERSION, "1900-01-01");
        assertThat(errorCode(p.request("tools/list", params))).isEqualTo(ErrorCodes.UNSUPPORTED_PROTOCOL_VERSION);
    }

    @ParameterizedTest
    @ValueSource(strings = {"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe",
            "tasks/list", "no/such/method"})
    void methodsTheStatelessEraDoesNotHaveAreMethodNotFound(String method) {
        Peer p = peer();
        ObjectNode params = Json.object().put("uri", "test://watched").put("level", "info").put("protocolVersion", M);
        JsonNode e = p.modernRequest(method, params);
        assertThat(errorCode(e)).isEqualTo(ErrorCodes.METHOD_NOT_FOUND);
    }

    @Test
    void aModernInitializeDoesNotOpenASession() {
        Peer p = peer();
        ObjectNode params = Json.object().put("protocolVersion", "2025-11-25");
        params.putObject("capabilities");
        params.putObject("clientInfo").put("name", "c").put("version", "1");
        assertThat(errorCode(p.modernRequest("initialize", params))).isEqualTo(ErrorCodes.METHOD_NOT_FOUND);
        // no legacy session now: a request without _meta is still refused
        assertThat(errorCode(p.request("tools/list", null))).isEqualTo(ErrorCodes.INVALID_REQUEST);
    }

    @Test
    void anInvalidLogLevelIsInvalidParams() {
        Peer p = peer();
        ObjectNode params = Json.object();
        params.putObject("_meta").put(Peer.META_LOG_LEVEL, "verbose");
        assertThat(errorCode(p.modernRequest("tools/list", params))).isEqualTo(ErrorCodes.INVALID_PARAMS);
    }

    @Test
    void aMalformedClientInfoIsInvalidParams() {
        Peer p = peer();
        ObjectNode params = Json.object();
        params.putObject("_meta").put(Peer.META_CLIENT_INFO, "me");
        assertThat(errorCode(p.modernRequest("tools/list", params))).isEqualTo(ErrorCodes.INVALID_PARAMS);
    }

    @Test
    void aBatchIsRefusedWholeAndNothingRuns() {
        Peer p = peer();
        ObjectNode call = p.modern(call("echo", "{\"text\":\"x\"}"));
        p.raw("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":" + call + "}]");
        JsonNode e = p.await(m -> m.has("error"), "refusal");
        assertThat(e.get("id").isNull()).isTrue();
        assertThat(e.at("/error/code").intValue()).isEqualTo(ErrorCodes.INVALID_REQUEST);
        assertThat(result(p.modernRequest("tools/list", null))).isNotNull();
        assertThat(fixtures.echoCalls).hasValue(0);
    }

    // ------------------------------------------------------------------ result decoration

    @Test
    void everyResultHasAResultTypeAndServerInfo() {
        Peer p = peer();
        ObjectNode get = Json.object().put("name", "review");
        get.putObject("arguments").put("code", "x");
        ObjectNode complete = Json.object();
        complete.putObject("ref").put("type", "ref/prompt").put("name", "review");
        complete.putObject("argument").put("name", "language").put("value", "p");
        List<JsonNode> results = List.of(
                result(p.modernRequest("tools/list", null)),
                result(p.modernRequest("tools/call", call("echo", "{\"text\":\"x\"}"))),
                result(p.modernRequest("tools/call", call("add", "{\"a\":1}"))),
                result(p.modernRequest("resources/list", null)),
                result(p.modernRequest("resources/templates/list", null)),
                result(p.modernRequest("resources/read", Json.object().put("uri", "test://static-text"))),
                result(p.modernRequest("prompts/list", null)),
                result(p.modernRequest("prompts/get", get)),
                result(p.modernRequest("completion/complete", complete)));
        for (JsonNode r : results) {
            assertThat(r.path("resultType").asString("")).as("%s", r).isEqualTo("complete");
            assertThat(r.at("/_meta/io.modelcontextprotocol~1serverInfo/version").stringValue()).as("%s", r).isEqualTo("1.2.3");
        }
    }

    @Test
    void listsAndReadsCarryCacheHintsOtherResultsDoNot() {
        Peer p = peer();
        for (String method : new String[] {"tools/list", "resources/list", "resources/templates/list", "prompts/list"}) {
            JsonNode r = result(p.modernRequest(method, null));
            assertThat(r.has("ttlMs")).as(method).isTrue();
            assertThat(r.get("ttlMs").longValue()).as(method).isNotNegative();
            assertThat(r.get("cacheScope").stringValue()).as(method).isIn("public", "private");
        }
        JsonNode read = result(p.modernRequest("resources/read", Json.object().put("uri", "test://template/7/data")));
        assertThat(read.has("ttlMs")).isTrue();
        assertThat(read.get("cacheScope").stringValue()).isIn("public", "private");
        JsonNode call = result(p.modernRequest("tools/call", call("echo", "{\"text\":\"x\"}")));
        assertThat(call.has("ttlMs")).isFalse();
        assertThat(call.has("cacheScope")).isFalse();
        ObjectNode get = Json.object().put("name", "review");
        get.putObject("arguments").put("code", "x");
        JsonNode prompt = result(p.modernRequest("prompts/get", get));
        assertThat(prompt.has("ttlMs")).isFalse();
    }

    @Test
    void everyPageOfAListHasTheSameCacheScope() {
        McpServer.Builder b = fixtures.server().pageSize(2);
        Peer p = peer(start(b));
        String cursor = null;
        List<String> scopes = new ArrayList<>();
        List<String> names = new ArrayList<>();
        do {
            ObjectNode params = cursor == null ? null : Json.object().put("cursor", cursor);
            JsonNode r = result(p.modernRequest("tools/list", params));
            scopes.add(r.get("cacheScope").stringValue());
            r.get("tools").forEach(t -> names.add(t.get("name").stringValue()));
            cursor = r.has("nextCursor") ? r.get("nextCursor").stringValue() : null;
        } while (cursor != null && names.size() < 100);
        assertThat(names).hasSize(9).doesNotHaveDuplicates();
        assertThat(scopes).hasSize(5).containsOnly(scopes.get(0));
    }

    @Test
    void toolErrorsStayToolResults() {
        Peer p = peer();
        JsonNode r = result(p.modernRequest("tools/call", call("add", "{\"a\":\"one\",\"b\":2}")));
        assertThat(r.get("isError").booleanValue()).isTrue();
        assertThat(errorCode(p.modernRequest("tools/call", call("nope", null)))).isEqualTo(ErrorCodes.INVALID_PARAMS);
    }

    @Test
    void anUnknownResourceIsInvalidParamsWithItsUri() {
        Peer p = peer();
        JsonNode e = p.modernRequest("resources/read", Json.object().put("uri", "file:///nonexistent.txt"));
        assertThat(errorCode(e)).isEqualTo(ErrorCodes.INVALID_PARAMS);
        assertThat(e.at("/error/data/uri").stringValue()).isEqualTo("file:///nonexistent.txt");
    }

    @Test
    void aResourceThatReadsAsNothingIsNotFoundRatherThanEmpty() {
        McpServer.Builder b = McpServer.builder()
                .resource(ResourceSpec.builder("test://empty", "empty").handler((c, u, v) -> new ReadResourceResult(List.of(), null)).build())
                .resource(ResourceSpec.builder("test://null", "null").handler((c, u, v) -> null).build());
        Peer p = peer(start(b));
        assertThat(errorCode(p.modernRequest("resources/read", Json.object().put("uri", "test://empty")))).isEqualTo(ErrorCodes.INVALID_PARAMS);
        assertThat(errorCode(p.modernRequest("resources/read", Json.object().put("uri", "test://null")))).isEqualTo(ErrorCodes.INVALID_PARAMS);
    }

    @Test
    void aModernRequestIsServedStatelesslyBesideALegacySession() {
        Peer p = new Peer(start(fixtures.server()));
        toClose.add(0, p);
        p.initialize("2025-11-25");
        JsonNode legacy = result(p.request("tools/list", null));
        assertThat(legacy.has("resultType")).isFalse();
        JsonNode modern = result(p.modernRequest("tools/list", null));
        assertThat(modern.get("resultType").stringValue()).isEqualTo("complete");
    }

    // ------------------------------------------------------------------ progress, logging, cancellation

    @Test
    void progressFollowsTheRequestsToken() {
        Peer p = peer();
        ObjectNode params = call("progress", null);
        params.putObject("_meta").put("progressToken", "p-1");
        RequestId id = p.send("tools/call", p.modern(params));
        p.result(id);
        List<JsonNode> progress = p.notifications("notifications/progress");
        assertThat(progress).extracting(m -> m.at("/params/progress").doubleValue()).containsExactly(1.0, 2.0, 2.5, 3.0);
        assertThat(progress).allSatisfy(m -> assertThat(m.at("/params/progressToken").stringValue()).isEqualTo("p-1"));
        p.result(p.send("tools/call", p.modern(call("progress", null))));
        assertThat(p.notifications("notifications/progress")).hasSize(4);
    }

    @Test
    void logMessagesOnlyForRequestsThatAskAndAtOrAboveTheirLevel() {
        Peer p = peer();
        RequestId silent = p.send("tools/call", p.modern(call("log", null)));
        p.result(silent);
        assertThat(p.notifications("notifications/message")).isEmpty();
        ObjectNode params = call("log", null);
        params.putObject("_meta").put(Peer.META_LOG_LEVEL, "error");
        RequestId loud = p.send("tools/call", p.modern(params));
        p.result(loud);
        List<String> levels = p.relatedTo(loud).stream().map(Peer.Sent::message)
                .filter(m -> "notifications/message".equals(m.path("method").asString("")))
                .map(m -> m.at("/params/level").stringValue()).toList();
        assertThat(levels).containsExactly("error", "critical", "alert", "emergency");
        // the level is per request: the next request without it hears nothing
        RequestId again = p.send("tools/call", p.modern(call("log", null)));
        p.result(again);
        assertThat(p.notifications("notifications/message")).hasSize(4);
    }

    @Test
    void cancellationReachesARunningHandlerAndSilencesTheRequest() throws Exception {
        Peer p = peer();
        RequestId id = p.send(RequestId.of("call-7"), "tools/call", p.modern(call("sleep", null)));
        fixtures.sleeper.awaitEntered();
        p.cancel(id, "user");
        fixtures.sleeper.awaitFinished();
        assertThat(fixtures.sleeper.interrupted).isTrue();
        assertThat(fixtures.sleeper.sawCancelled).isTrue();
        assertThat(p.relatedTo(id)).isEmpty();
    }

    @Test
    void aHandlerPastItsDeadlineIsCancelled() throws Exception {
        Peer p = peer(start(fixtures.server().handlerTimeout(Duration.ofMillis(200))));
        JsonNode r = result(p.modernRequest("tools/call", call("sleep", null)));
        assertThat(r.get("isError").booleanValue()).isTrue();
        fixtures.sleeper.awaitFinished();
        assertThat(fixtures.sleeper.sawCancelled).isTrue();
    }

    @Test
    void aResourceHandlerPastItsDeadlineIsAnInternalError() {
        McpServer.Builder b = McpServer.builder().handlerTimeout(Duration.ofMillis(200))
                .resource(ResourceSpec.builder("test://slow", "slow").handler((c, u, v) -> {
                    Thread.sleep(Duration.ofMinutes(5));
                    return null;
                }).build());
        Peer p = peer(start(b));
        JsonNode e = p.modernRequest("resources/read", Json.object().put("uri", "test://slow"));
        assertThat(errorCode(e)).isEqualTo(ErrorCodes.INTERNAL_ERROR);
    }

    // ------------------------------------------------------------------ multi round-trip requests

    @Test
    void elicitationIsAnInputRequiredRoundTrip() {
        Peer p = peer().capabilities(elicitation());
        ObjectNode params = call("greet", "{\"greeting\":\"Hi\"}");

        JsonNode first = result(p.modernRequest("tools/call", params));
        assertThat(first.get("resultType").stringValue()).isEqualTo("input_required");
        assertThat(first.has("ttlMs")).isFalse();
        assertThat(first.get("inputRequests").size()).isEqualTo(1);
        String key1 = first.get("inputRequests").propertyNames().iterator().next();
        JsonNode ask1 = first.get("inputRequests").get(key1);
        assertThat(ask1.get("method").stringValue()).isEqualTo("elicitation/create");
        assertThat(ask1.has("jsonrpc")).isFalse();
        assertThat(ask1.has("id")).isFalse();
        assertThat(ask1.at("/params/message").stringValue()).isEqualTo("Your name?");
        assertThat(ask1.at("/params/requestedSchema/properties/name/type").stringValue()).isEqualTo("string");
        String state1 = first.get("requestState").stringValue();

        ObjectNode retry = params.deepCopy();
        retry.putObject("inputResponses").set(key1, Json.mapper().readTree("{\"action\":\"accept\",\"content\":{\"name\":\"Octo\"}}"));
        retry.put("requestState", state1);
        JsonNode second = result(p.modernRequest("tools/call", retry));
        assertThat(second.get("resultType").stringValue()).isEqualTo("input_required");
        String key2 = second.get("inputRequests").propertyNames().iterator().next();
        assertThat(key2).isNotEqualTo(key1);
        assertThat(second.at("/inputRequests/" + key2 + "/params/message").stringValue()).isEqualTo("Greet Octo?");

        ObjectNode last = params.deepCopy();
        last.putObject("inputResponses").set(key2, Json.mapper().readTree("{\"action\":\"accept\",\"content\":{\"ok\":true}}"));
        last.put("requestState", second.get("requestState").stringValue());
        JsonNode done = result(p.modernRequest("tools/call", last));
        assertThat(done.get("resultType").stringValue()).isEqualTo("complete");
        assertThat(done.at("/content/0/text").stringValue()).isEqualTo("Hi, Octo");
    }

    @Test
    void aDeclinedElicitationReachesTheHandler() {
        Peer p = peer().capabilities(elicitation());
        ObjectNode params = call("greet", null);
        JsonNode first = result(p.modernRequest("tools/call", params));
        String key = first.get("inputRequests").propertyNames().iterator().next();
        ObjectNode retry = params.deepCopy();
        retry.putObject("inputResponses").putObject(key).put("action", "decline");
        retry.put("requestState", first.get("requestState").stringValue());
        assertThat(result(p.modernRequest("tools/call", retry)).at("/content/0/text").stringValue()).isEqualTo("no name");
    }

    @Test
    void aTamperedOrForeignRequestStateIsInvalidParams() {
        Peer p = peer().capabilities(elicitation());
        ObjectNode params = call("greet", "{\"greeting\":\"Hi\"}");
        JsonNode first = result(p.modernRequest("tools/call", params));
        String key = first.get("inputRequests").propertyNames().iterator().next();
        String state = first.get("requestState").stringValue();
        JsonNode answer = Json.mapper().readTree("{\"action\":\"accept\",\"content\":{\"name\":\"Octo\"}}");

        ObjectNode tampered = params.deepCopy();
        tampered.putObject("inputResponses").set(key, answer);
        tampered.put("requestState", (state.charAt(0) == 'A' ? "B" : "A") + state.substring(1));
        assertThat(errorCode(p.modernRequest("tools/call", tampered))).isEqualTo(ErrorCodes.INVALID_PARAMS);

        ObjectNode otherArguments = call("greet", "{\"greeting\":\"Bye\"}");
        otherArguments.putObject("inputResponses").set(key, answer);
        otherArguments.put("requestState", state);
        assertThat(errorCode(p.modernRequest("tools/call", otherArguments))).isEqualTo(ErrorCodes.INVALID_PARAMS);

        McpServer otherServer = start(fixtures.server());
        Peer q = peer(otherServer).capabilities(elicitation());
        ObjectNode foreign = params.deepCopy();
        foreign.putObject("inputResponses").set(key, answer);
        foreign.put("requestState", state);
        assertThat(errorCode(q.modernRequest("tools/call", foreign))).isEqualTo(ErrorCodes.INVALID_PARAMS);

        ObjectNode notAString = params.deepCopy();
        notAString.put("requestState", 5);
        assertThat(errorCode(p.modernRequest("tools/call", notAString))).isEqualTo(ErrorCodes.INVALID_PARAMS);
    }

    @Test
    void serversSharingAKeyAcceptEachOthersState() {
        byte[] key = new byte[32];
        java.util.Arrays.fill(key, (byte) 7);
        Peer p = peer(start(fixtures.server().requestStateKey(key))).capabilities(elicitation());
        Peer q = peer(start(fixtures.server().requestStateKey(key))).capabilities(elicitation());
        ObjectNode params = call("greet", null);
        JsonNode first = result(p.modernRequest("tools/call", params));
        String k = first.get("inputRequests").propertyNames().iterator().next();
        ObjectNode retry = params.deepCopy();
        retry.putObject("inputResponses").set(k, Json.mapper().readTree("{\"action\":\"accept\",\"content\":{\"name\":\"N\"}}"));
        retry.put("requestState", first.get("requestState").stringValue());
        assertThat(result(q.modernRequest("tools/call", retry)).get("resultType").stringValue()).isEqualTo("input_required");
    }

    @Test
    void malformedInputResponsesAreInvalidParams() {
        Peer p = peer().capabilities(elicitation());
        ObjectNode notObject = call("greet", null);
        notObject.put("inputResponses", "yes");
        assertThat(errorCode(p.modernRequest("tools/call", notObject))).isEqualTo(ErrorCodes.INVALID_PARAMS);
        ObjectNode badEntry = call("greet", null);
        badEntry.putObject("inputResponses").put("elicitation-1", "accept");
        assertThat(errorCode(p.modernRequest("tools/call", badEntry))).isEqualTo(ErrorCodes.INVALID_PARAMS);
    }

    @Test
    void withoutTheElicitationCapabilityTheRequestFailsNamingIt() {
        Peer p = peer();
        JsonNode e = p.modernRequest("tools/call", call("greet", null));
        assertThat(errorCode(e)).isEqualTo(MISSING_CAPABILITY);
        SpecSchemas.assertValid(M, "MissingRequiredClientCapabilityError", e);
        assertThat(e.at("/error/data/requiredCapabilities/elicitation").isObject()).isTrue();
    }

    @Test
    void aClientThatOnlyDoesUrlElicitationCannotGetAForm() {
        ObjectNode caps = Json.object();
        caps.putObject("elicitation").putObject("url");
        Peer p = peer().capabilities(caps);
        JsonNode e = p.modernRequest("tools/call", call("greet", null));
        assertThat(errorCode(e)).isEqualTo(MISSING_CAPABILITY);
        assertThat(e.at("/error/data/requiredCapabilities/elicitation/form").isObject()).isTrue();
    }

    @Test
    void urlElicitationHasNoElicitationIdInTheStatelessEra() {
        McpServer.Builder b = McpServer.builder().tool(ToolSpec.builder("connect").handler((ctx, a) -> {
            var r = ctx.elicitUrl("Connect your account", "https://example.com/connect", "el-1");
            return CallToolResult.text(r.action());
        }).build());
        ObjectNode caps = Json.object();
        caps.putObject("elicitation").putObject("url");
        Peer p = peer(start(b)).capabilities(caps);
        JsonNode first = result(p.modernRequest("tools/call", call("connect", null)));
        JsonNode ask = first.get("inputRequests").iterator().next();
        assertThat(ask.at("/params/mode").stringValue()).isEqualTo("url");
        assertThat(ask.at("/params/url").stringValue()).isEqualTo("https://example.com/connect");
        assertThat(ask.at("/params").has("elicitationId")).isFalse();
    }

    @Test
    void rootsAndSamplingAreInputRequestsToo() {
        McpServer.Builder b = McpServer.builder().tool(ToolSpec.builder("plan").handler((ctx, a) -> {
            var roots = ctx.roots();
            ObjectNode ask = (ObjectNode) Json.mapper().readTree("{\"messages\":[{\"role\":\"user\",\"content\":"
                    + "{\"type\":\"text\",\"text\":\"Plan?\"}}],\"maxTokens\":10}");
            var answer = ctx.sample(ask);
            return CallToolResult.text(roots.get(0).uri() + " / "
                    + ((dev.tern.protocol.model.TextContent) answer.content()).text());
        }).build());
        ObjectNode caps = Json.object();
        caps.putObject("roots");
        caps.putObject("sampling");
        Peer p = peer(start(b)).capabilities(caps);
        ObjectNode params = call("plan", null);
        JsonNode first = result(p.modernRequest("tools/call", params));
        String rootsKey = first.get("inputRequests").propertyNames().iterator().next();
        JsonNode rootsAsk = first.get("inputRequests").get(rootsKey);
        assertThat(rootsAsk.get("method").stringValue()).isEqualTo("roots/list");
        ObjectNode retry = params.deepCopy();
        retry.putObject("inputResponses").set(rootsKey, Json.mapper().readTree("{\"roots\":[{\"uri\":\"file:///projects/app\"}]}"));
        retry.put("requestState", first.get("requestState").stringValue());
        JsonNode second = result(p.modernRequest("tools/call", retry));
        String samplingKey = second.get("inputRequests").propertyNames().iterator().next();
        assertThat(second.at("/inputRequests/" + samplingKey + "/method").stringValue()).isEqualTo("sampling/createMessage");
        assertThat(second.at("/inputRequests/" + samplingKey + "/params/maxTokens").intValue()).isEqualTo(10);
        ObjectNode last = params.deepCopy();
        last.putObject("inputResponses").set(samplingKey, Json.mapper().readTree("{\"role\":\"assistant\",\"content\":"
                + "{\"type\":\"text\",\"text\":\"step one\"},\"model\":\"m\"}"));
        last.put("requestState", second.get("requestState").stringValue());
        assertThat(result(p.modernRequest("tools/call", last)).at("/content/0/text").stringValue()).isEqualTo("file:///projects/app / step one");
    }

    @Test
    void withoutTheSamplingCapabilityTheRequestFailsNamingIt() {
        McpServer.Builder b = McpServer.builder().tool(ToolSpec.builder("plan").handler((ctx, a) -> {
            ctx.sample(Json.object());
            return CallToolResult.text("unreachable");
        }).build());
        JsonNode e = peer(start(b)).modernRequest("tools/call", call("plan", null));
        assertThat(errorCode(e)).isEqualTo(MISSING_CAPABILITY);
        assertThat(e.at("/error/data/requiredCapabilities/sampling").isObject()).isTrue();
    }

    // ------------------------------------------------------------------ subscriptions/listen

    private static ObjectNode filter(boolean tools, boolean prompts, boolean resources, String... uris) {
        ObjectNode p = Json.object();
        ObjectNode n = p.putObject("notifications");
        if (tools) {
            n.put("toolsListChanged", true);
        }
        if (prompts) {
            n.put("promptsListChanged", true);
        }
        if (resources) {
            n.put("resourcesListChanged", true);
        }
        if (uris.length > 0) {
            var array = n.putArray("resourceSubscriptions");
            for (String u : uris) {
                array.add(u);
            }
        }
        return p;
    }

    private static JsonNode subscriptionId(JsonNode notification) {
        return notification.at("/params/_meta/" + Peer.META_SUBSCRIPTION_ID.replace("/", "~1"));
    }

    @Test
    void listenIsAcknowledgedFirstWithTheHonouredFilter() {
        Peer p = peer();
        RequestId id = p.send(RequestId.of("listen-1"), "subscriptions/listen", p.modern(filter(true, false, false,
                "test://watched", "test://watched")));
        JsonNode ack = p.awaitNotification("notifications/subscriptions/acknowledged");
        assertThat(p.relatedTo(id).get(0).message()).isEqualTo(ack);
        assertThat(subscriptionId(ack).isString()).isTrue();
        assertThat(subscriptionId(ack).stringValue()).isEqualTo("listen-1");
        assertThat(ack.at("/params/notifications/toolsListChanged").booleanValue()).isTrue();
        assertThat(ack.at("/params/notifications").has("promptsListChanged")).isFalse();
        assertThat(ack.at("/params/notifications/resourceSubscriptions")).singleElement()
                .satisfies(uri -> assertThat(uri.stringValue()).isEqualTo("test://watched"));
        assertThat(p.responsesTo(id)).isEmpty();
    }

    @Test
    void aChannelClosedByItsListensOwnResultEndsTheListenOnce() {
        // Closing a channel answers its listens; Streamable HTTP's 2026-07-28 channel closes itself on that answer.
        Peer p = peer();
        p.closeOnResponses();
        RequestId id = p.send(RequestId.of("listen-1"), "subscriptions/listen", p.modern(filter(true, false, false)));
        p.awaitNotification("notifications/subscriptions/acknowledged");
        p.close();
        assertThat(p.responsesTo(id)).singleElement()
                .satisfies(r -> assertThat(r.at("/result/resultType").asString()).isEqualTo("complete"));
    }

    @Test
    void aListensAcknowledgementComesBeforeTheEndThatACloseRacingItsSetUpSends() {
        Peer p = peer();
        p.beforeRecording(onAcknowledgement(p.channel()::close));
        RequestId id = p.send(RequestId.of("racing-close"), "subscriptions/listen", p.modern(filter(true, false, false)));
        p.response(id);
        assertThat(p.relatedTo(id)).extracting(s -> s.message().path("method").asString("(response)"))
                .containsExactly("notifications/subscriptions/acknowledged", "(response)");
    }

    @Test
    void aListensAcknowledgementComesBeforeAListChangeRacingItsSetUp() {
        McpServer server = start(fixtures.server().listChangedDelay(Duration.ofMillis(1)));
        Peer p = peer(server);
        p.beforeRecording(onAcknowledgement(() -> {
            server.addTool(ToolSpec.builder("racing").handler((c, a) -> null).build());
            sleep(300);
        }));
        RequestId id = p.send(RequestId.of("racing-change"), "subscriptions/listen", p.modern(filter(true, false, false)));
        p.awaitNotification("notifications/tools/list_changed");
        assertThat(p.relatedTo(id)).extracting(s -> s.message().path("method").asString())
                .containsExactly("notifications/subscriptions/acknowledged", "notifications/tools/list_changed");
    }

    /**
     * A hook that, on the first acknowledgement, runs {@code racer} on another thread and gives it 300 ms: a server
     * that lets it send meanwhile has its message recorded before the acknowledgement.
     */
    private static java.util.function.Consumer<JsonNode> onAcknowledgement(Runnable racer) {
        java.util.concurrent.atomic.AtomicBoolean fired = new java.util.concurrent.atomic.AtomicBoolean();
        return message -> {
            if (message.path("method").asString("").equals("notifications/subscriptions/acknowledged")
                    && fired.compareAndSet(false, true)) {
                Thread racing = Thread.ofPlatform().start(racer);
                try {
                    racing.join(300);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void anIntegerListenIdStaysAnInteger() {
        Peer p = peer();
        p.send(RequestId.of(7), "subscriptions/listen", p.modern(filter(true, false, false)));
        JsonNode ack = p.awaitNotification("notifications/subscriptions/acknowledged");
        assertThat(subscriptionId(ack).isIntegralNumber()).isTrue();
        assertThat(subscriptionId(ack).intValue()).isEqualTo(7);
    }

    @Test
    void listChangesReachTheListenStreamsThatAskedForThem() {
        McpServer server = start(fixtures.server().listChangedDelay(Duration.ofMillis(1)));
        Peer p = peer(server);
        RequestId tools = p.send(RequestId.of("tools"), "subscriptions/listen", p.modern(filter(true, false, false)));
        RequestId prompts = p.send(RequestId.of("prompts"), "subscriptions/listen", p.modern(filter(false, true, false)));
        p.awaitNotifications("notifications/subscriptions/acknowledged", 2);
        server.addResource(ResourceSpec.builder("test://new", "new").text("n").build());
        server.addTool(ToolSpec.builder("fresh").handler((c, a) -> null).build());
        JsonNode changed = p.awaitNotification("notifications/tools/list_changed");
        assertThat(subscriptionId(changed).stringValue()).isEqualTo("tools");
        assertThat(p.relatedTo(tools)).extracting(s -> s.message().path("method").asString(""))
                .containsExactly("notifications/subscriptions/acknowledged", "notifications/tools/list_changed");
        assertThat(p.notifications("notifications/resources/list_changed")).isEmpty();
        server.addPrompt(PromptSpec.builder("fresh").handler((c, a) -> null).build());
        JsonNode promptChanged = p.awaitNotification("notifications/prompts/list_changed");
        assertThat(subscriptionId(promptChanged).stringValue()).isEqualTo("prompts");
        assertThat(p.notifications("notifications/tools/list_changed")).hasSize(1);
        assertThat(p.responsesTo(tools)).isEmpty();
        assertThat(p.responsesTo(prompts)).isEmpty();
    }

    @Test
    void resourceUpdatesReachOnlyTheStreamsWatchingThatUri() {
        McpServer server = start(fixtures.server());
        Peer p = peer(server);
        p.send(RequestId.of("watch"), "subscriptions/listen", p.modern(filter(false, false, false, "test://watched")));
        p.awaitNotification("notifications/subscriptions/acknowledged");
        server.notifyResourceUpdated("test://static-text");
        assertThat(p.notifications("notifications/resources/updated")).isEmpty();
        server.notifyResourceUpdated("test://watched");
        List<JsonNode> updates = p.notifications("notifications/resources/updated");
        assertThat(updates).hasSize(1);
        assertThat(updates.get(0).at("/params/uri").stringValue()).isEqualTo("test://watched");
        assertThat(subscriptionId(updates.get(0)).stringValue()).isEqualTo("watch");
    }

    @Test
    void cancellingAListenEndsItsStream() {
        McpServer server = start(fixtures.server().listChangedDelay(Duration.ofMillis(1)));
        Peer p = peer(server);
        RequestId first = p.send(RequestId.of("first"), "subscriptions/listen", p.modern(filter(true, false, false, "test://watched")));
        RequestId second = p.send(RequestId.of("second"), "subscriptions/listen", p.modern(filter(true, false, false)));
        p.awaitNotifications("notifications/subscriptions/acknowledged", 2);
        p.cancel(first, "done");
        server.notifyResourceUpdated("test://watched");
        assertThat(p.notifications("notifications/resources/updated")).isEmpty();
        server.addTool(ToolSpec.builder("fresh").handler((c, a) -> null).build());
        JsonNode changed = p.awaitNotification("notifications/tools/list_changed");
        assertThat(subscriptionId(changed).stringValue()).isEqualTo("second");
        assertThat(p.notifications("notifications/tools/list_changed")).hasSize(1);
        assertThat(p.responsesTo(first)).isEmpty();
        assertThat(p.relatedTo(second)).hasSize(2);
    }

    @Test
    void closingTheChannelEndsOpenListensWithAResult() {
        McpServer server = start(fixtures.server());
        Peer p = new Peer(server).checkedAgainst(M);
        RequestId id = p.send(RequestId.of("listen-1"), "subscriptions/listen", p.modern(filter(true, true, true)));
        p.awaitNotification("notifications/subscriptions/acknowledged");
        p.close();
        List<JsonNode> responses = p.responsesTo(id);
        assertThat(responses).hasSize(1);
        JsonNode r = responses.get(0).get("result");
        SpecSchemas.assertValid(M, "SubscriptionsListenResult", r);
        assertThat(r.get("resultType").stringValue()).isEqualTo("complete");
        assertThat(r.at("/_meta/io.modelcontextprotocol~1subscriptionId").stringValue()).isEqualTo("listen-1");
    }

    @Test
    void withoutAListenNoListChangesAreSent() {
        McpServer server = start(fixtures.server().listChangedDelay(Duration.ofMillis(1)));
        Peer quiet = peer(server);
        Peer listening = peer(server);
        assertThat(result(quiet.modernRequest("tools/list", null))).isNotNull();
        listening.send(RequestId.of("l"), "subscriptions/listen", listening.modern(filter(true, false, false)));
        listening.awaitNotification("notifications/subscriptions/acknowledged");
        server.addTool(ToolSpec.builder("fresh").handler((c, a) -> null).build());
        listening.awaitNotification("notifications/tools/list_changed");
        assertThat(quiet.notifications("notifications/tools/list_changed")).isEmpty();
    }

    @Test
    void aListenIdInUseIsRefused() {
        Peer p = peer();
        p.send(RequestId.of("l"), "subscriptions/listen", p.modern(filter(true, false, false)));
        p.awaitNotification("notifications/subscriptions/acknowledged");
        JsonNode e = p.response(p.send(RequestId.of("l"), "tools/list", p.modern(null)));
        assertThat(errorCode(e)).isEqualTo(ErrorCodes.INVALID_REQUEST);
    }
}
