package dev.tern.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.tern.protocol.ErrorCodes;
import dev.tern.protocol.Json;
import dev.tern.protocol.model.Content;
import dev.tern.protocol.model.PromptMessage;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** Services described with @Tool, @Resource, @Prompt and @Complete, registered through the builder. */
class AnnotatedFeaturesTest {

    record City(@Arg(description = "City name") String name, @Arg(required = false) String country) {
    }

    record Weather(String city, double celsius) {
    }

    static class BaseService {
        @Tool(description = "Inherited tool")
        public String inherited() {
            return "from the base class";
        }
    }

    static class Service extends BaseService {
        volatile String lastMethodSeen;

        @Tool(title = "Say hello", description = "Greets someone")
        public String hello(@Arg(description = "Who to greet") String name) {
            return "Hello, " + name;
        }

        @Tool(name = "sum", readOnly = Hint.TRUE, idempotent = Hint.TRUE)
        public String add(int a, @Arg(required = false) Integer b, @Arg(defaultValue = "10") int c) {
            return a + "+" + b + "+" + c;
        }

        @Tool(description = "Forecast for a city")
        public Weather forecast(City city) {
            return new Weather(city.name(), 21.5);
        }

        @Tool
        public String contextual(RequestContext ctx, String q) {
            lastMethodSeen = ctx.method();
            return q + " via " + ctx.method();
        }

        @Tool
        public void nothing() {
        }

        @Tool
        public String optional(Optional<String> word) {
            return word.orElse("none");
        }

        @Tool
        public Map<String, Integer> counts(List<String> words) {
            Map<String, Integer> m = new LinkedHashMap<>();
            words.forEach(w -> m.merge(w, 1, Integer::sum));
            return m;
        }

        @Tool
        public String failing() {
            throw new ToolException("no such thing");
        }

        @Resource(uri = "test://greeting", mimeType = "text/plain", description = "A greeting")
        public String greeting() {
            return "hi there";
        }

        @Resource(uri = "users://{id}/profile", name = "profile")
        public Map<String, Object> profile(String id) {
            return Map.of("id", id, "active", true);
        }

        @Resource(uri = "bin://logo", mimeType = "image/png")
        public byte[] logo() {
            return new byte[] {1, 2, 3};
        }

        @Prompt(description = "Summarize text")
        public List<PromptMessage> summarize(@Arg(description = "The text") String text, @Arg(required = false) String style) {
            return List.of(PromptMessage.user(Content.text("Summarize (" + (style == null ? "plain" : style) + "): " + text)));
        }

        @Prompt(name = "simple")
        public String simplePrompt() {
            return "Just a prompt";
        }

        @Complete(prompt = "summarize", argument = "style")
        public List<String> styles(String value) {
            return List.of("bullet", "brief", "formal").stream().filter(s -> s.startsWith(value)).toList();
        }

        @Complete(resource = "users://{id}/profile", argument = "id")
        public List<String> ids(String value, Map<String, String> context) {
            return List.of(value + "1", value + "2");
        }

        public String notAFeature() {
            return "hidden";
        }
    }

    private final Service service = new Service();
    private McpServer server;
    private Peer p;

    @BeforeEach
    void start() {
        server = McpServer.builder().register(service).build();
        p = new Peer(server).checkedAgainst(Peer.MODERN);
    }

    @AfterEach
    void stop() {
        p.close();
        server.close();
    }

    private JsonNode result(String method, ObjectNode params) {
        JsonNode r = p.modernRequest(method, params);
        assertThat(r.has("result")).as("%s", r).isTrue();
        return r.get("result");
    }

    private Map<String, JsonNode> tools() {
        Map<String, JsonNode> byName = new LinkedHashMap<>();
        result("tools/list", null).get("tools").forEach(t -> byName.put(t.get("name").stringValue(), t));
        return byName;
    }

    private JsonNode call(String tool, String args) {
        return result("tools/call", Fixtures.call(tool, args));
    }

    static class Jobs {
        @Tool(taskSupport = TaskSupport.REQUIRED)
        public String report() {
            return "done";
        }

        @Tool
        public String quick() {
            return "done";
        }
    }

    @Test
    void taskSupportComesFromTheAnnotationAndIsForbiddenByDefault() {
        try (McpServer jobs = McpServer.builder().register(new Jobs()).build()) {
            ToolSpec report = jobs.registry().tool("report");
            assertThat(report.taskSupport()).isEqualTo(TaskSupport.REQUIRED);
            assertThat(report.tool().execution().taskSupport()).isEqualTo("required");
            ToolSpec quick = jobs.registry().tool("quick");
            assertThat(quick.taskSupport()).isEqualTo(TaskSupport.FORBIDDEN);
            assertThat(quick.tool().execution()).isNull();
        }
    }

    @Test
    void annotatedMethodsBecomeToolsAndOthersDoNot() {
        assertThat(tools().keySet()).containsExactlyInAnyOrder("hello", "sum", "forecast", "contextual", "nothing", "optional",
                "counts", "failing", "inherited");
    }

    @Test
    void toolMetadataComesFromTheAnnotations() {
        JsonNode hello = tools().get("hello");
        assertThat(hello.get("title").stringValue()).isEqualTo("Say hello");
        assertThat(hello.get("description").stringValue()).isEqualTo("Greets someone");
        assertThat(hello.at("/inputSchema/properties/name/type").stringValue()).isEqualTo("string");
        assertThat(hello.at("/inputSchema/properties/name/description").stringValue()).isEqualTo("Who to greet");
        assertThat(hello.at("/inputSchema/required").toString()).isEqualTo("[\"name\"]");
        assertThat(hello.has("outputSchema")).isFalse();
        JsonNode sum = tools().get("sum");
        assertThat(sum.at("/annotations/readOnlyHint").booleanValue()).isTrue();
        assertThat(sum.at("/annotations/idempotentHint").booleanValue()).isTrue();
    }

    @Test
    void parametersBecomeTheInputSchema() {
        JsonNode schema = tools().get("sum").get("inputSchema");
        assertThat(SpecSchemas.metaSchemaViolations(schema)).isEmpty();
        assertThat(schema.at("/properties/a/type").stringValue()).isEqualTo("integer");
        assertThat(schema.at("/properties/b/type").stringValue()).isEqualTo("integer");
        assertThat(schema.at("/properties/c/default").intValue()).isEqualTo(10);
        assertThat(schema.get("required").toString()).isEqualTo("[\"a\"]");
        assertThat(schema.get("additionalProperties").booleanValue()).isFalse();
    }

    @Test
    void aRequestContextParameterIsInjectedNotListed() {
        JsonNode schema = tools().get("contextual").get("inputSchema");
        assertThat(schema.get("properties").size()).isEqualTo(1);
        assertThat(schema.at("/properties/q/type").stringValue()).isEqualTo("string");
        assertThat(call("contextual", "{\"q\":\"x\"}").at("/content/0/text").stringValue()).isEqualTo("x via tools/call");
        assertThat(service.lastMethodSeen).isEqualTo("tools/call");
    }

    @Test
    void aNoArgumentToolHasTheClosedEmptySchema() {
        JsonNode schema = tools().get("nothing").get("inputSchema");
        assertThat(schema.get("type").stringValue()).isEqualTo("object");
        assertThat(schema.get("additionalProperties").booleanValue()).isFalse();
        JsonNode r = call("nothing", null);
        assertThat(r.get("content").isArray()).isTrue();
        assertThat(r.get("content")).isEmpty();
    }

    @Test
    void aSingleRecordParameterIsTheWholeArgumentsObject() {
        JsonNode forecast = tools().get("forecast");
        assertThat(forecast.at("/inputSchema/properties/name/description").stringValue()).isEqualTo("City name");
        assertThat(forecast.at("/inputSchema/required").toString()).isEqualTo("[\"name\"]");
        assertThat(forecast.at("/outputSchema/properties/celsius/type").stringValue()).isEqualTo("number");
        JsonNode r = call("forecast", "{\"name\":\"Oslo\"}");
        assertThat(r.at("/structuredContent/city").stringValue()).isEqualTo("Oslo");
        assertThat(r.at("/structuredContent/celsius").doubleValue()).isEqualTo(21.5);
        assertThat(Json.mapper().readTree(r.at("/content/0/text").stringValue())).isEqualTo(r.get("structuredContent"));
        assertThat(SpecSchemas.validate(Peer.MODERN, "CallToolResult", r)).isEmpty();
    }

    @Test
    void structuredContentMatchesTheOutputSchema() {
        JsonNode forecast = tools().get("forecast");
        JsonNode r = call("forecast", "{\"name\":\"Oslo\",\"country\":\"NO\"}");
        ArgumentValidator output = ArgumentValidator.of((ObjectNode) forecast.get("outputSchema"));
        assertThat(output.validate(r.get("structuredContent"))).isEmpty();
        JsonNode counts = tools().get("counts");
        JsonNode c = call("counts", "{\"words\":[\"a\",\"b\",\"a\"]}");
        assertThat(c.at("/structuredContent/a").intValue()).isEqualTo(2);
        assertThat(ArgumentValidator.of((ObjectNode) counts.get("outputSchema")).validate(c.get("structuredContent"))).isEmpty();
    }

    @Test
    void absentOptionalArgumentsGetTheirDefaults() {
        assertThat(call("sum", "{\"a\":1}").at("/content/0/text").stringValue()).isEqualTo("1+null+10");
        assertThat(call("sum", "{\"a\":1,\"b\":2,\"c\":3}").at("/content/0/text").stringValue()).isEqualTo("1+2+3");
        assertThat(call("optional", "{}").at("/content/0/text").stringValue()).isEqualTo("none");
        assertThat(call("optional", "{\"word\":\"yes\"}").at("/content/0/text").stringValue()).isEqualTo("yes");
    }

    @Test
    void argumentsAreValidatedBeforeTheMethodRuns() {
        JsonNode r = call("sum", "{\"a\":\"one\"}");
        assertThat(r.get("isError").booleanValue()).isTrue();
        JsonNode missing = call("hello", "{}");
        assertThat(missing.get("isError").booleanValue()).isTrue();
        assertThat(missing.at("/content/0/text").stringValue()).contains("name");
    }

    @Test
    void toolExceptionsFromMethodsAreToolErrors() {
        JsonNode r = call("failing", null);
        assertThat(r.get("isError").booleanValue()).isTrue();
        assertThat(r.at("/content/0/text").stringValue()).isEqualTo("no such thing");
    }

    @Test
    void inheritedToolsWork() {
        assertThat(call("inherited", null).at("/content/0/text").stringValue()).isEqualTo("from the base class");
    }

    @Test
    void resourcesAndTemplates() {
        JsonNode resources = result("resources/list", null).get("resources");
        Map<String, JsonNode> byUri = new LinkedHashMap<>();
        resources.forEach(r -> byUri.put(r.get("uri").stringValue(), r));
        assertThat(byUri.keySet()).containsExactlyInAnyOrder("test://greeting", "bin://logo");
        assertThat(byUri.get("test://greeting").get("name").stringValue()).isEqualTo("greeting");
        assertThat(byUri.get("test://greeting").get("mimeType").stringValue()).isEqualTo("text/plain");
        assertThat(byUri.get("test://greeting").get("description").stringValue()).isEqualTo("A greeting");
        JsonNode templates = result("resources/templates/list", null).get("resourceTemplates");
        assertThat(templates).hasSize(1);
        assertThat(templates.get(0).get("uriTemplate").stringValue()).isEqualTo("users://{id}/profile");
        assertThat(templates.get(0).get("name").stringValue()).isEqualTo("profile");

        JsonNode text = result("resources/read", Json.object().put("uri", "test://greeting"));
        assertThat(text.at("/contents/0/text").stringValue()).isEqualTo("hi there");
        assertThat(text.at("/contents/0/mimeType").stringValue()).isEqualTo("text/plain");
        JsonNode profile = result("resources/read", Json.object().put("uri", "users://ada/profile"));
        assertThat(profile.at("/contents/0/mimeType").stringValue()).isEqualTo("application/json");
        assertThat(Json.mapper().readTree(profile.at("/contents/0/text").stringValue()))
                .isEqualTo(Json.mapper().readTree("{\"id\":\"ada\",\"active\":true}"));
        JsonNode logo = result("resources/read", Json.object().put("uri", "bin://logo"));
        assertThat(Base64.getDecoder().decode(logo.at("/contents/0/blob").stringValue())).containsExactly(1, 2, 3);
        assertThat(logo.at("/contents/0/mimeType").stringValue()).isEqualTo("image/png");
    }

    @Test
    void promptsFromMethods() {
        JsonNode prompts = result("prompts/list", null).get("prompts");
        Map<String, JsonNode> byName = new LinkedHashMap<>();
        prompts.forEach(pr -> byName.put(pr.get("name").stringValue(), pr));
        assertThat(byName.keySet()).containsExactlyInAnyOrder("summarize", "simple");
        JsonNode summarize = byName.get("summarize");
        assertThat(summarize.get("description").stringValue()).isEqualTo("Summarize text");
        assertThat(summarize.at("/arguments/0/name").stringValue()).isEqualTo("text");
        assertThat(summarize.at("/arguments/0/description").stringValue()).isEqualTo("The text");
        assertThat(summarize.at("/arguments/0/required").booleanValue()).isTrue();
        assertThat(summarize.at("/arguments/1/required").booleanValue()).isFalse();
        ObjectNode get = Json.object().put("name", "summarize");
        get.putObject("arguments").put("text", "long text").put("style", "brief");
        assertThat(result("prompts/get", get).at("/messages/0/content/text").stringValue()).isEqualTo("Summarize (brief): long text");
        JsonNode simple = result("prompts/get", Json.object().put("name", "simple"));
        assertThat(simple.at("/messages/0/role").stringValue()).isEqualTo("user");
        assertThat(simple.at("/messages/0/content/text").stringValue()).isEqualTo("Just a prompt");
        JsonNode e = p.modernRequest("prompts/get", Json.object().put("name", "summarize"));
        assertThat(e.at("/error/code").intValue()).isEqualTo(ErrorCodes.INVALID_PARAMS);
    }

    @Test
    void completersFromMethods() {
        ObjectNode prompt = Json.object();
        prompt.putObject("ref").put("type", "ref/prompt").put("name", "summarize");
        prompt.putObject("argument").put("name", "style").put("value", "b");
        assertThat(result("completion/complete", prompt).at("/completion/values").toString()).isEqualTo("[\"bullet\",\"brief\"]");
        ObjectNode resource = Json.object();
        resource.putObject("ref").put("type", "ref/resource").put("uri", "users://{id}/profile");
        resource.putObject("argument").put("name", "id").put("value", "u");
        assertThat(result("completion/complete", resource).at("/completion/values").toString()).isEqualTo("[\"u1\",\"u2\"]");
        ObjectNode unknownArgument = Json.object();
        unknownArgument.putObject("ref").put("type", "ref/prompt").put("name", "summarize");
        unknownArgument.putObject("argument").put("name", "text").put("value", "x");
        assertThat(result("completion/complete", unknownArgument).at("/completion/values")).isEmpty();
    }

    // ------------------------------------------------------------------ mistakes found at registration

    static class CompleteWithoutTarget {
        @Complete(argument = "x")
        public List<String> c(String v) {
            return List.of();
        }
    }

    static class NonStringPromptArgument {
        @Prompt
        public String p(int n) {
            return "";
        }
    }

    static class BadToolName {
        @Tool(name = "has spaces")
        public String t() {
            return "";
        }
    }

    static class ScalarRecordlessArguments {
        @Tool
        public String t(String a, String b) {
            return a + b;
        }
    }

    @Test
    void mistakesAreReportedWhenTheServiceIsRegistered() {
        assertThatThrownBy(() -> McpServer.builder().register(new CompleteWithoutTarget())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> McpServer.builder().register(new NonStringPromptArgument())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> McpServer.builder().register(new BadToolName())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void severalScalarParametersBecomeProperties() {
        try (McpServer s = McpServer.builder().register(new ScalarRecordlessArguments()).build(); Peer q = new Peer(s)) {
            JsonNode r = q.modernRequest("tools/call", Fixtures.call("t", "{\"a\":\"x\",\"b\":\"y\"}"));
            assertThat(r.at("/result/content/0/text").stringValue()).isEqualTo("xy");
        }
    }
}
