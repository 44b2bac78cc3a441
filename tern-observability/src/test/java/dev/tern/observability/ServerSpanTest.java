package dev.tern.observability;

import static io.opentelemetry.api.common.AttributeKey.stringKey;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.tern.server.observe.Era;
import dev.tern.server.observe.RequestObservation;
import dev.tern.server.observe.Transport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.opentelemetry.api.baggage.Baggage;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;

class ServerSpanTest {
    private static final String CLIENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String CLIENT_SPAN = "00f067aa0ba902b7";
    private static final String META_TRACEPARENT = "00-" + CLIENT_TRACE + "-" + CLIENT_SPAN + "-01";
    private static final String HTTP_TRACE = "0af7651916cd43dd8448eb211c80319c";
    private static final String HTTP_SPAN = "b7ad6b7169203331";
    private static final String HTTP_TRACEPARENT = "00-" + HTTP_TRACE + "-" + HTTP_SPAN + "-01";

    private final Fixture fixture = new Fixture();

    @AfterEach
    void close() {
        fixture.close();
    }

    private SpanData onlySpan() {
        List<SpanData> spans = fixture.spans.getFinishedSpanItems();
        assertThat(spans).hasSize(1);
        return spans.get(0);
    }

    @Test
    void aToolCallIsAServerSpanNamedByMethodAndToolWithTheConventionsAttributes() {
        long t0 = System.nanoTime();
        RequestObservation o = fixture.observer.request(Transport.HTTP_2, t0)
                .clientAddress("127.0.0.1")
                .parsed(t0 + 10_000, "tools/call", "get_user")
                .requestId(7)
                .protocolVersion("2025-11-25")
                .era(Era.SESSION)
                .session("191c4850af6c49e08843a3f6c80e5046");
        o.handlerStarted(t0 + 30_000).close();
        o.handlerEnded(t0 + 130_000).encodingStarted(t0 + 140_000).end(t0 + 150_000);

        SpanData span = onlySpan();
        assertThat(span.getName()).isEqualTo("tools/call get_user");
        assertThat(span.getKind()).isEqualTo(SpanKind.SERVER);
        assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
        assertThat(span.getAttributes().asMap()).containsEntry(stringKey("mcp.method.name"), "tools/call")
                .containsEntry(stringKey("gen_ai.tool.name"), "get_user")
                .containsEntry(stringKey("gen_ai.operation.name"), "execute_tool")
                .containsEntry(stringKey("jsonrpc.request.id"), "7")
                .containsEntry(stringKey("mcp.protocol.version"), "2025-11-25")
                .containsEntry(stringKey("mcp.session.id"), "191c4850af6c49e08843a3f6c80e5046")
                .containsEntry(stringKey("network.transport"), "tcp")
                .containsEntry(stringKey("network.protocol.name"), "http")
                .containsEntry(stringKey("network.protocol.version"), "2")
                .containsEntry(stringKey("client.address"), "127.0.0.1")
                .doesNotContainKey(stringKey("error.type"));
        assertThat(span.getEndEpochNanos() - span.getStartEpochNanos()).isEqualTo(150_000);
        assertThat(span.getEvents()).extracting(EventData::getName).containsExactly("parse", "queue", "exec", "ser");
        assertThat(span.getEvents().get(2).getEpochNanos() - span.getStartEpochNanos()).isEqualTo(130_000);
        assertThat(span.getEvents().get(2).getAttributes().asMap().values()).containsExactly(100_000 / 1e9);
    }

    @Test
    void theTraceContextInMetaIsTheParentAndAnHttpTraceparentBesideItIsLinked() {
        long t0 = System.nanoTime();
        fixture.observer.request(Transport.HTTP_1_1, t0)
                .httpTraceContext(HTTP_TRACEPARENT, null, null)
                .parsed(t0 + 1, "tools/list", null)
                .metaTraceContext(META_TRACEPARENT, "rojo=00f067aa0ba902b7", null)
                .end(t0 + 2);

        SpanData span = onlySpan();
        assertThat(span.getName()).isEqualTo("tools/list");
        assertThat(span.getTraceId()).isEqualTo(CLIENT_TRACE);
        assertThat(span.getParentSpanId()).isEqualTo(CLIENT_SPAN);
        assertThat(span.getParentSpanContext().isRemote()).isTrue();
        assertThat(span.getParentSpanContext().getTraceState().get("rojo")).isEqualTo("00f067aa0ba902b7");
        assertThat(span.getLinks()).singleElement()
                .satisfies(link -> assertThat(link.getSpanContext().getSpanId()).isEqualTo(HTTP_SPAN));
    }

    @Test
    void withoutMetaTheHttpTraceparentIsTheParent() {
        long t0 = System.nanoTime();
        fixture.observer.request(Transport.HTTP_1_1, t0)
                .httpTraceContext(HTTP_TRACEPARENT, null, null)
                .parsed(t0 + 1, "ping", null)
                .end(t0 + 2);

        SpanData span = onlySpan();
        assertThat(span.getTraceId()).isEqualTo(HTTP_TRACE);
        assertThat(span.getParentSpanId()).isEqualTo(HTTP_SPAN);
        assertThat(span.getLinks()).isEmpty();
    }

    @Test
    void withoutAnyTraceContextTheSpanStartsANewTrace() {
        long t0 = System.nanoTime();
        fixture.observer.request(Transport.STDIO, t0).parsed(t0 + 1, "ping", null).end(t0 + 2);

        SpanData span = onlySpan();
        assertThat(span.getParentSpanContext().isValid()).isFalse();
        assertThat(span.getAttributes().asMap()).containsEntry(stringKey("network.transport"), "pipe")
                .doesNotContainKey(stringKey("network.protocol.name"));
    }

    @Test
    void whileTheHandlerRunsTheRequestSpanAndTheBaggageFromMetaAreCurrent() {
        long t0 = System.nanoTime();
        RequestObservation o = fixture.observer.request(Transport.HTTP_1_1, t0)
                .parsed(t0 + 1, "tools/call", "search_users")
                .metaTraceContext(META_TRACEPARENT, null, "userId=alice");
        String currentTrace;
        String baggage;
        RequestObservation.Scope scope = o.handlerStarted(t0 + 2);
        try {
            currentTrace = Span.current().getSpanContext().getTraceId();
            baggage = Baggage.current().getEntryValue("userId");
        } finally {
            scope.close();
        }
        assertThat(Span.current().getSpanContext().isValid()).as("after the scope closed").isFalse();
        o.handlerEnded(t0 + 3).end(t0 + 4);

        assertThat(currentTrace).isEqualTo(CLIENT_TRACE);
        assertThat(baggage).isEqualTo("alice");
        assertThat(onlySpan().getTraceId()).isEqualTo(CLIENT_TRACE);
    }

    @Test
    void aJsonRpcErrorSetsTheErrorStatusWithItsMessageAndItsCodeAsErrorType() {
        long t0 = System.nanoTime();
        fixture.observer.request(Transport.HTTP_1_1, t0)
                .parsed(t0 + 1, "tools/call", "get_user")
                .requestId("req-1")
                .endError(t0 + 2, -32602, "id: missing");

        SpanData span = onlySpan();
        assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(span.getStatus().getDescription()).isEqualTo("id: missing");
        assertThat(span.getAttributes().asMap()).containsEntry(stringKey("error.type"), "-32602")
                .containsEntry(stringKey("rpc.response.status_code"), "-32602")
                .containsEntry(stringKey("jsonrpc.request.id"), "req-1");
    }

    @Test
    void aToolResultWithIsErrorIsAToolError() {
        long t0 = System.nanoTime();
        fixture.observer.request(Transport.HTTP_1_1, t0).parsed(t0 + 1, "tools/call", "get_user").endToolError(t0 + 2);

        SpanData span = onlySpan();
        assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(span.getAttributes().asMap()).containsEntry(stringKey("error.type"), "tool_error")
                .doesNotContainKey(stringKey("rpc.response.status_code"));
    }

    @Test
    void aResourceReadCarriesItsUriAsAnAttributeButNotInItsName() {
        long t0 = System.nanoTime();
        fixture.observer.request(Transport.HTTP_1_1, t0)
                .parsed(t0 + 1, "resources/read", null)
                .resourceUri("user://42")
                .end(t0 + 2);

        SpanData span = onlySpan();
        assertThat(span.getName()).isEqualTo("resources/read");
        assertThat(span.getAttributes().asMap()).containsEntry(stringKey("mcp.resource.uri"), "user://42");
    }

    @Test
    void aPromptGetIsNamedByItsPromptAndCarriesItsName() {
        long t0 = System.nanoTime();
        fixture.observer.request(Transport.HTTP_1_1, t0).parsed(t0 + 1, "prompts/get", "summarize_user").end(t0 + 2);

        SpanData span = onlySpan();
        assertThat(span.getName()).isEqualTo("prompts/get summarize_user");
        assertThat(span.getAttributes().asMap()).containsEntry(stringKey("gen_ai.prompt.name"), "summarize_user")
                .doesNotContainKey(stringKey("gen_ai.operation.name"));
    }

    @Test
    void repeatedCallsToOneToolShareOneSpanNameAndAttributeSet() {
        var operations = new Operations();

        var first = operations.of("tools/call", "get_user");
        var second = operations.of("tools/call", new String("get_user"));

        assertThat(second).isSameAs(first);
        assertThat(second.metric(Transport.HTTP_1_1, "2026-07-28"))
                .isSameAs(first.metric(Transport.HTTP_1_1, "2026-07-28"));
    }

    @Test
    void pastTheLimitOfTargetsNewToolsAreNamedButCountedUnderOther() {
        var operations = new Operations();
        for (int i = 0; i < Operations.MAX_TARGETS; i++) {
            operations.of("tools/call", "tool" + i);
        }

        var extra = operations.of("tools/call", "one_too_many");

        assertThat(extra.spanName).isEqualTo("tools/call one_too_many");
        assertThat(extra.metric(Transport.STDIO, null).asMap())
                .containsEntry(stringKey("gen_ai.tool.name"), Operations.OTHER);
    }

    @Test
    void spanTimesFollowTheNanoTimeReadingsTheServerTook() {
        long t0 = System.nanoTime();
        long before = System.currentTimeMillis();
        fixture.observer.request(Transport.STDIO, t0).parsed(t0 + 1, "ping", null).end(t0 + 2);

        long start = TimeUnit.NANOSECONDS.toMillis(onlySpan().getStartEpochNanos());
        assertThat(start).isBetween(before - 50, System.currentTimeMillis() + 50);
    }

    @Test
    void theServiceIsNamedTernUnlessTheConfigurationNamesIt() {
        long t0 = System.nanoTime();
        fixture.observer.request(Transport.STDIO, t0).parsed(t0 + 1, "ping", null).end(t0 + 2);
        assertThat(onlySpan().getResource().getAttribute(stringKey("service.name"))).isEqualTo("tern");

        var spans = io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter.create();
        try (Observability named = Observability.builder().tracing(true)
                .property("otel.service.name", "directory")
                .spanProcessor(io.opentelemetry.sdk.trace.export.SimpleSpanProcessor.create(spans)).build()) {
            named.observer().request(Transport.STDIO, t0).parsed(t0 + 1, "ping", null).end(t0 + 2);

            assertThat(spans.getFinishedSpanItems()).singleElement().satisfies(span ->
                    assertThat(span.getResource().getAttribute(stringKey("service.name"))).isEqualTo("directory"));
        }
    }
}
