package dev.tern.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.tern.protocol.Json;
import dev.tern.protocol.RequestId;
import dev.tern.protocol.model.CallToolResult;

import tools.jackson.databind.JsonNode;

/** What the builders accept and refuse, and the server's life cycle. */
class BuildersTest {

    @ParameterizedTest
    @ValueSource(strings = {"getUser", "DATA_EXPORT_v2", "admin.tools.list", "a", "x-y", "0"})
    void validToolNames(String name) {
        assertThat(ToolSpec.builder(name).handler((c, a) -> null).build().name()).isEqualTo(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "has space", "comma,separated", "slash/name", "\u00e9t\u00e9", "tab\tname"})
    void invalidToolNamesAreRefused(String name) {
        assertThatThrownBy(() -> ToolSpec.builder(name).handler((c, a) -> null).build()).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void toolNamesAreAtMost128Characters() {
        assertThat(ToolSpec.builder("a".repeat(128)).handler((c, a) -> null).build()).isNotNull();
        assertThatThrownBy(() -> ToolSpec.builder("a".repeat(129)).handler((c, a) -> null).build())
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aToolNeedsAHandlerAndAnObjectInputSchema() {
        assertThatThrownBy(() -> ToolSpec.builder("t").build()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> ToolSpec.builder("t").inputSchema(Json.object().put("type", "array")).handler((c, a) -> null).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ToolSpec.builder("t").taskSupport(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void taskSupportIsListedWithItsWireValueAndOnlyWhenSet() {
        ToolSpec plain = ToolSpec.builder("t").handler((c, a) -> null).build();
        assertThat(plain.taskSupport()).isEqualTo(TaskSupport.FORBIDDEN);
        assertThat(plain.tool().execution()).isNull();
        for (TaskSupport support : TaskSupport.values()) {
            ToolSpec t = ToolSpec.builder("t").taskSupport(support).handler((c, a) -> null).build();
            assertThat(t.taskSupport()).isEqualTo(support);
            assertThat(t.tool().execution().taskSupport()).isEqualTo(support.name().toLowerCase(java.util.Locale.ROOT));
        }
    }

    @Test
    void askingBeforeTheTaskNeedsATaskAndAHandlerThatMayBlock() {
        assertThatThrownBy(() -> ToolSpec.builder("t").inputBeforeTask(true).handler((c, a) -> null).build())
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> ToolSpec.builder("t").taskSupport(TaskSupport.FORBIDDEN).inputBeforeTask(true)
                .handler((c, a) -> null).build()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> ToolSpec.builder("t").taskSupport(TaskSupport.REQUIRED).inputBeforeTask(true)
                .nonBlocking(true).handler((c, a) -> null).build()).isInstanceOf(IllegalStateException.class);
        assertThat(ToolSpec.builder("t").taskSupport(TaskSupport.OPTIONAL).inputBeforeTask(true)
                .handler((c, a) -> null).build().inputBeforeTask()).isTrue();
    }

    @Test
    void aToolWithoutParametersGetsTheRecommendedEmptySchema() {
        ToolSpec t = ToolSpec.builder("t").handler((c, a) -> null).build();
        assertThat(t.tool().inputSchema().toString()).isEqualTo("{\"type\":\"object\",\"additionalProperties\":false}");
    }

    @Test
    void resourcesAndTemplatesAreToldApart() {
        assertThatThrownBy(() -> ResourceSpec.builder("file:///{path}", "f").text("x").build()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ResourceSpec.builder("file:///a", "a").build()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> ResourceTemplateSpec.builder("file:///{path}", "f").build()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> ResourceTemplateSpec.builder("file:///{path}", "f").handler((c, u, v) -> null)
                .complete("other", (v, ctx) -> List.of()).build()).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aBlobResourceKnowsItsSize() {
        ResourceSpec r = ResourceSpec.builder("bin://x", "x").mimeType("image/png").blob(new byte[] {1, 2, 3, 4}).build();
        assertThat(r.resource().size()).isEqualTo(4L);
    }

    @Test
    void promptCompletersMustNameAnArgument() {
        assertThatThrownBy(() -> PromptSpec.builder("p").build()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> PromptSpec.builder("p").handler((c, a) -> null).complete("x", (v, ctx) -> List.of()).build())
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void serverSettingsAreChecked() {
        assertThatThrownBy(() -> McpServer.builder().pageSize(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> McpServer.builder().handlerTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> McpServer.builder().clientRequestTimeout(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> McpServer.builder().requestStateKey(new byte[16])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aClosedServerRefusesNewChannels() {
        McpServer server = McpServer.builder().build();
        Peer p = new Peer(server);
        assertThat(server.channelCount()).isEqualTo(1);
        server.close();
        assertThat(server.channelCount()).isZero();
        assertThatThrownBy(() -> server.connect((m, r) -> { })).isInstanceOf(IllegalStateException.class);
        // a closed channel ignores what still arrives
        p.raw("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
        assertThat(p.messages()).isEmpty();
    }

    @Test
    void replacingAToolKeepsItsPlaceInTheList() {
        try (McpServer server = McpServer.builder()
                .tool(ToolSpec.builder("a").handler((c, x) -> CallToolResult.text("old")).build())
                .tool(ToolSpec.builder("b").handler((c, x) -> null).build()).build(); Peer p = new Peer(server)) {
            server.addTool(ToolSpec.builder("a").handler((c, x) -> CallToolResult.text("new")).build());
            JsonNode tools = p.modernRequest("tools/list", null).at("/result/tools");
            assertThat(tools.get(0).get("name").stringValue()).isEqualTo("a");
            assertThat(tools).hasSize(2);
            assertThat(p.modernRequest("tools/call", Fixtures.call("a", null)).at("/result/content/0/text").stringValue())
                    .isEqualTo("new");
        }
    }

    @Test
    void concurrentCallsFromTwoClientsUsingTheSameIdsEachGetTheirOwnAnswers() throws Exception {
        CountDownLatch allIn = new CountDownLatch(40);
        var schema = (tools.jackson.databind.node.ObjectNode) Json.mapper().readTree("{\"type\":\"object\",\"properties\":"
                + "{\"client\":{\"type\":\"string\"},\"n\":{\"type\":\"integer\"}}}");
        try (McpServer server = McpServer.builder().tool(ToolSpec.builder("who").inputSchema(schema).handler((ctx, a) -> {
            allIn.countDown();
            allIn.await(20, TimeUnit.SECONDS);
            return CallToolResult.text(a.get("client").stringValue() + ":" + a.get("n").intValue());
        }).build()).build(); Peer one = new Peer(server); Peer two = new Peer(server)) {
            List<RequestId> ids = new ArrayList<>();
            for (int n = 0; n < 20; n++) {
                RequestId id = RequestId.of(n);
                ids.add(id);
                one.send(id, "tools/call", one.modern(Fixtures.call("who", "{\"client\":\"one\",\"n\":" + n + "}")));
                two.send(id, "tools/call", two.modern(Fixtures.call("who", "{\"client\":\"two\",\"n\":" + n + "}")));
            }
            for (RequestId id : ids) {
                int n = (int) ((RequestId.NumberId) id).value();
                assertThat(one.result(id).at("/content/0/text").stringValue()).isEqualTo("one:" + n);
                assertThat(two.result(id).at("/content/0/text").stringValue()).isEqualTo("two:" + n);
            }
            assertThat(one.messages()).hasSize(20);
            assertThat(two.messages()).hasSize(20);
        }
    }
}
