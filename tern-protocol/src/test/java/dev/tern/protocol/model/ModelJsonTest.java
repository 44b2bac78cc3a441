package dev.tern.protocol.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/** How the model records read and write JSON, beyond the official examples. */
class ModelJsonTest {

    private static JsonNode tree(Object value) {
        return Json.mapper().valueToTree(value);
    }

    private static <T> T read(String json, Class<T> type) {
        return Json.mapper().readValue(json, type);
    }

    @Test
    void absentOptionalMembersAreLeftOut() {
        assertThat(tree(Content.text("hi")).toString()).isEqualTo("{\"type\":\"text\",\"text\":\"hi\"}");
        assertThat(tree(Implementation.of("n", "1")).toString()).isEqualTo("{\"name\":\"n\",\"version\":\"1\"}");
        assertThat(tree(CallToolResult.text("x")).toString())
                .isEqualTo("{\"content\":[{\"type\":\"text\",\"text\":\"x\"}]}");
    }

    @Test
    void contentBlocksCarryTheirTypeTag() {
        assertThat(tree(Content.image("AA==", "image/png")).get("type").stringValue()).isEqualTo("image");
        assertThat(tree(Content.audio("AA==", "audio/wav")).get("type").stringValue()).isEqualTo("audio");
        assertThat(tree(Content.resource(ResourceContents.text("u:a", "text/plain", "t"))).get("type").stringValue())
                .isEqualTo("resource");
        assertThat(tree(ResourceLink.of("u:a", "a", "text/plain")).get("type").stringValue()).isEqualTo("resource_link");
    }

    @Test
    void unknownContentTypeIsRefused() {
        assertThatThrownBy(() -> read("{\"type\":\"hologram\",\"data\":\"x\"}", Content.class)).isInstanceOf(JacksonException.class);
    }

    @Test
    void resourceContentsAreToldApartByTheirMembers() {
        assertThat(read("{\"uri\":\"u:a\",\"text\":\"t\"}", ResourceContents.class)).isInstanceOf(TextResourceContents.class);
        assertThat(read("{\"uri\":\"u:a\",\"blob\":\"AA==\"}", ResourceContents.class)).isInstanceOf(BlobResourceContents.class);
    }

    @Test
    void samplingAnswerWithOneBlock() {
        CreateMessageResult r = read("{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"Paris\"},"
                + "\"model\":\"m\",\"stopReason\":\"endTurn\"}", CreateMessageResult.class);
        assertThat(r.role()).isEqualTo(Role.ASSISTANT);
        assertThat(r.content()).isEqualTo(Content.text("Paris"));
        assertThat(tree(r).get("content").isObject()).isTrue();
    }

    @Test
    void samplingAnswerWithSeveralBlocksIncludingToolUse() {
        CreateMessageResult r = read("{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"c1\",\"name\":\"w\","
                + "\"input\":{\"city\":\"Paris\"}},{\"type\":\"text\",\"text\":\"t\"}],\"model\":\"m\",\"stopReason\":\"toolUse\"}",
                CreateMessageResult.class);
        assertThat(r.content()).isInstanceOf(ContentList.class);
        List<Content> items = ((ContentList) r.content()).items();
        assertThat(items).hasSize(2);
        ToolUseContent use = (ToolUseContent) items.get(0);
        assertThat(use.id()).isEqualTo("c1");
        assertThat(use.input().get("city").stringValue()).isEqualTo("Paris");
        JsonNode back = tree(r);
        assertThat(back.get("content").isArray()).isTrue();
        assertThat(back.at("/content/0/type").stringValue()).isEqualTo("tool_use");
        assertThat(back.at("/content/1/type").stringValue()).isEqualTo("text");
    }

    @Test
    void samplingAnswerWithAToolResult() {
        CreateMessageResult r = read("{\"role\":\"user\",\"content\":{\"type\":\"tool_result\",\"toolUseId\":\"c1\","
                + "\"content\":[{\"type\":\"text\",\"text\":\"18C\"}],\"isError\":false},\"model\":\"m\"}", CreateMessageResult.class);
        ToolResultContent result = (ToolResultContent) r.content();
        assertThat(result.toolUseId()).isEqualTo("c1");
        assertThat(result.content()).containsExactly(Content.text("18C"));
        assertThat(result.isError()).isFalse();
    }

    @Test
    void aSingleElementArrayStaysAnArray() {
        CreateMessageResult r = read("{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"x\"}],\"model\":\"m\"}",
                CreateMessageResult.class);
        assertThat(r.content()).isEqualTo(new ContentList(List.of(Content.text("x"))));
        assertThat(tree(r).get("content").isArray()).isTrue();
    }

    @Test
    void metaIsKeptOnAnswersFromTheClient() {
        ElicitResult e = read("{\"action\":\"accept\",\"content\":{\"a\":1},\"_meta\":{\"k\":\"v\"}}", ElicitResult.class);
        assertThat(e.accepted()).isTrue();
        assertThat(e.meta()).containsEntry("k", "v");
        assertThat(tree(e).get("_meta").get("k").stringValue()).isEqualTo("v");
        assertThat(new ElicitResult("decline", null).accepted()).isFalse();
        Root root = read("{\"uri\":\"file:///a\",\"_meta\":{\"k\":1}}", Root.class);
        assertThat(root.meta()).containsEntry("k", 1);
        assertThat(new Root("file:///a", "a").meta()).isNull();
    }

    @Test
    void urlModeAcceptHasNoContent() {
        ElicitResult e = read("{\"action\":\"accept\"}", ElicitResult.class);
        assertThat(e.content()).isNull();
        assertThat(tree(e).toString()).isEqualTo("{\"action\":\"accept\"}");
    }

    @Test
    void toolErrorResult() {
        JsonNode t = tree(CallToolResult.error("bad input"));
        assertThat(t.get("isError").booleanValue()).isTrue();
        assertThat(t.at("/content/0/text").stringValue()).isEqualTo("bad input");
    }

    @Test
    void completionKeepsAtMostOneHundredValuesAndSaysHowManyThereWere() {
        List<String> many = IntStream.range(0, 150).mapToObj(i -> "v" + i).toList();
        Completion c = Completion.of(many);
        assertThat(c.values()).hasSize(100).startsWith("v0").endsWith("v99");
        assertThat(c.total()).isEqualTo(150);
        assertThat(c.hasMore()).isTrue();
        Completion few = Completion.of(List.of("a", "b"));
        assertThat(few.values()).containsExactly("a", "b");
        assertThat(few.total()).isEqualTo(2);
        assertThat(few.hasMore()).isFalse();
        Completion exactly = Completion.of(many.subList(0, 100));
        assertThat(exactly.values()).hasSize(100);
        assertThat(exactly.hasMore()).isFalse();
    }

    @Test
    void loggingLevelsAreOrderedAndWrittenInLowerCase() {
        assertThat(LoggingLevel.values()).extracting(LoggingLevel::wire).containsExactly("debug", "info", "notice", "warning",
                "error", "critical", "alert", "emergency");
        assertThat(LoggingLevel.ERROR.atLeast(LoggingLevel.WARNING)).isTrue();
        assertThat(LoggingLevel.WARNING.atLeast(LoggingLevel.WARNING)).isTrue();
        assertThat(LoggingLevel.INFO.atLeast(LoggingLevel.WARNING)).isFalse();
        assertThat(LoggingLevel.parse("notice")).contains(LoggingLevel.NOTICE);
        assertThat(LoggingLevel.parse("NOTICE")).isEmpty();
        assertThat(LoggingLevel.parse("warn")).isEmpty();
        assertThat(LoggingLevel.parse(null)).isEmpty();
        assertThat(tree(LoggingLevel.EMERGENCY).stringValue()).isEqualTo("emergency");
        assertThat(read("\"critical\"", LoggingLevel.class)).isEqualTo(LoggingLevel.CRITICAL);
    }

    @Test
    void rolesAreWrittenInLowerCase() {
        assertThat(tree(PromptMessage.user(Content.text("q"))).get("role").stringValue()).isEqualTo("user");
        assertThat(tree(PromptMessage.assistant(Content.text("a"))).get("role").stringValue()).isEqualTo("assistant");
        assertThat(tree(Annotations.forAudience(Role.USER, Role.ASSISTANT)).get("audience").toString())
                .isEqualTo("[\"user\",\"assistant\"]");
    }

    @Test
    void unknownMembersAreIgnoredOnRead() {
        ToolDefinition t = read("{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\"},\"futureField\":1}", ToolDefinition.class);
        assertThat(t.name()).isEqualTo("t");
    }

    @Test
    void contentListCopiesItsItems() {
        List<Content> items = new java.util.ArrayList<>(List.of(Content.text("a")));
        ContentList list = new ContentList(items);
        items.add(Content.text("b"));
        assertThat(list.items()).hasSize(1);
    }
}
