package dev.tern.server;

import static dev.tern.server.Fixtures.call;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.tern.protocol.Json;
import dev.tern.protocol.RequestId;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Tools, resources and prompts that promise never to block run on the transport's thread where the transport allows
 * it, and only there.
 */
class NonBlockingHandlersTest {
    private static final String LEGACY = "2025-11-25";

    /** Where each tool last ran. */
    public static class Tools {
        final AtomicReference<Thread> quickThread = new AtomicReference<>();
        final AtomicReference<Thread> plainThread = new AtomicReference<>();
        final AtomicReference<Thread> memoThread = new AtomicReference<>();
        final AtomicReference<Thread> promptThread = new AtomicReference<>();
        final AtomicReference<Thread> plainMemoThread = new AtomicReference<>();

        @Resource(uri = "memo://quick", description = "A memo read from memory", nonBlocking = true)
        public String memo() {
            memoThread.set(Thread.currentThread());
            return "memo";
        }

        @Resource(uri = "memo://quick/{id}", description = "One memo read from memory", nonBlocking = true)
        public String memoById(@Arg(name = "id", description = "Its id") String id) {
            memoThread.set(Thread.currentThread());
            return "memo " + id;
        }

        @Resource(uri = "memo://plain", description = "A memo, without the promise")
        public String plainMemo() {
            plainMemoThread.set(Thread.currentThread());
            return "plain memo";
        }

        @Prompt(description = "A greeting from memory", nonBlocking = true)
        public String greeting() {
            promptThread.set(Thread.currentThread());
            return "Hello";
        }

        @Tool(description = "Answers at once", nonBlocking = true)
        public String quick() {
            quickThread.set(Thread.currentThread());
            return "quick";
        }

        @Tool(description = "Answers at once, without the promise")
        public String plain() {
            plainThread.set(Thread.currentThread());
            return "plain";
        }

        @Tool(description = "Asks the user, though it promised not to block", nonBlocking = true)
        public String asking(RequestContext context) {
            return context.elicit("Your name?", Json.mapper().readValue(
                    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}", ObjectNode.class))
                    .action();
        }
    }

    private final Tools tools = new Tools();
    private final McpServer server = McpServer.builder().info("t", "1").register(tools).build();
    private final List<AutoCloseable> toClose = new ArrayList<>(List.of(server));

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : toClose.reversed()) {
            c.close();
        }
    }

    private Peer peer() {
        Peer p = new Peer(server);
        toClose.add(p);
        return p;
    }

    @Test
    void theAnnotationAndTheBuilderDeclareIt() {
        assertThat(server.registry().tool("quick").nonBlocking()).isTrue();
        assertThat(server.registry().tool("plain").nonBlocking()).isFalse();
        assertThat(ToolSpec.builder("t").nonBlocking(true).handler((c, a) -> null).build().nonBlocking()).isTrue();
        assertThat(ToolSpec.builder("t").handler((c, a) -> null).build().nonBlocking()).isFalse();
        assertThat(server.registry().prompt("greeting").nonBlocking()).isTrue();
        assertThat(server.registry().findResource("memo://quick").orElseThrow().nonBlocking()).isTrue();
        assertThat(server.registry().findResource("memo://quick/7").orElseThrow().nonBlocking()).isTrue();
        assertThat(server.registry().findResource("memo://plain").orElseThrow().nonBlocking()).isFalse();
    }

    @Test
    void whereTheTransportAllowsItANonBlockingToolRunsOnTheReceivingThreadAndAnswersBeforeReceiveReturns() {
        Peer p = peer().runningNonBlockingHandlersInline();
        RequestId quick = p.send("tools/call", p.modern(call("quick", "{}")));
        assertRanHereAndAnswered(p, quick, tools.quickThread);
        assertThat(p.result(quick).at("/content/0/text").stringValue()).isEqualTo("quick");

        RequestId plain = p.send("tools/call", p.modern(call("plain", "{}")));
        assertThat(p.result(plain).at("/content/0/text").stringValue()).isEqualTo("plain");
        assertRanOnAVirtualThreadOfItsOwn(tools.plainThread);
    }

    @Test
    void resourcesAndTemplatesAndPromptsThatPromiseItRunOnTheReceivingThreadToo() {
        Peer p = peer().runningNonBlockingHandlersInline();
        ObjectNode read = Json.object().put("uri", "memo://quick");
        RequestId memo = p.send("resources/read", p.modern(read));
        assertRanHereAndAnswered(p, memo, tools.memoThread);
        assertThat(p.result(memo).at("/contents/0/text").stringValue()).isEqualTo("memo");

        tools.memoThread.set(null);
        RequestId byId = p.send("resources/read", p.modern(Json.object().put("uri", "memo://quick/7")));
        assertThat(tools.memoThread.get()).isSameAs(Thread.currentThread());
        assertThat(p.result(byId).at("/contents/0/text").stringValue()).isEqualTo("memo 7");

        RequestId prompt = p.send("prompts/get", p.modern(Json.object().put("name", "greeting")));
        assertThat(tools.promptThread.get()).isSameAs(Thread.currentThread());
        assertThat(p.result(prompt).at("/messages/0/content/text").stringValue()).isEqualTo("Hello");

        RequestId plain = p.send("resources/read", p.modern(Json.object().put("uri", "memo://plain")));
        assertThat(p.result(plain).at("/contents/0/text").stringValue()).isEqualTo("plain memo");
        assertThat(tools.plainMemoThread.get().isVirtual()).isTrue();

        RequestId missing = p.send("resources/read", p.modern(Json.object().put("uri", "memo://nowhere")));
        assertThat(p.response(missing).has("error")).isTrue();
    }

    @Test
    void byDefaultEveryToolRunsOnAVirtualThreadOfItsOwn() {
        Peer p = peer();
        RequestId quick = p.send("tools/call", p.modern(call("quick", "{}")));
        assertThat(p.result(quick).at("/content/0/text").stringValue()).isEqualTo("quick");
        assertRanOnAVirtualThreadOfItsOwn(tools.quickThread);
    }

    @Test
    void inALegacySessionARunningNonBlockingToolCannotWaitForTheClient() {
        ObjectNode caps = Json.object();
        caps.putObject("elicitation");
        Peer p = peer().runningNonBlockingHandlersInline().answering(request -> Json.mapper().readTree(
                "{\"action\":\"accept\",\"content\":{\"name\":\"Octo\"}}"));
        p.initialize(LEGACY, caps);
        RequestId id = p.send("tools/call", call("asking", "{}"));
        JsonNode result = p.result(id);

        assertThat(result.path("isError").asBoolean()).as("%s", result).isTrue();
        // the IllegalStateException that says why is logged; the client is told no more than of any other failure
        assertThat(result.at("/content/0/text").stringValue()).isEqualTo("Tool asking failed with an internal error");
        assertThat(p.relatedTo(id)).extracting(Peer.Sent::message)
                .noneMatch(m -> m.has("method") && m.has("id"));
    }

    @Test
    void inThe2026EraItAsksForInputAsAnyTool() {
        ObjectNode caps = Json.object();
        caps.putObject("elicitation");
        Peer p = peer().runningNonBlockingHandlersInline().capabilities(caps);
        JsonNode result = p.result(p.send("tools/call", p.modern(call("asking", "{}"))));

        assertThat(result.path("resultType").asString()).isEqualTo("input_required");
        assertThat(result.path("inputRequests").isObject()).isTrue();
    }

    /** The handler ran on this (the receiving) thread, and the response was sent before {@code receive} returned. */
    private static void assertRanHereAndAnswered(Peer p, RequestId id, AtomicReference<Thread> ranOn) {
        assertThat(ranOn.get()).isSameAs(Thread.currentThread());
        assertThat(p.responsesTo(id)).as("answered before receive returned").hasSize(1);
    }

    private static void assertRanOnAVirtualThreadOfItsOwn(AtomicReference<Thread> ranOn) {
        assertThat(ranOn.get()).isNotSameAs(Thread.currentThread());
        assertThat(ranOn.get().isVirtual()).isTrue();
    }
}
