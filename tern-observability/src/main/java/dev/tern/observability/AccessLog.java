package dev.tern.observability;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Objects;
import java.util.function.Consumer;

import dev.tern.server.observe.Era;

import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;

/**
 * One JSON line per MCP request: {@code time}, {@code method}, {@code target}, {@code outcome} ({@code ok},
 * {@code tool_error} or the JSON-RPC error code), {@code duration_ms}, {@code principal}, {@code session},
 * {@code trace_id}, {@code era} and {@code request_id}; fields without a value are left out.
 */
public final class AccessLog implements AutoCloseable {
    private static final JsonFactory JSON = new JsonFactory();

    private final Consumer<String> sink;
    private final Runnable closer;

    private AccessLog(Consumer<String> sink, Runnable closer) {
        this.sink = sink;
        this.closer = closer;
    }

    /** Hands each line, without its line break, to {@code sink}, on the thread that ended the request. */
    public static AccessLog to(Consumer<String> sink) {
        return new AccessLog(Objects.requireNonNull(sink, "sink"), () -> { });
    }

    /** Prints each line to {@code out}, such as {@code System.out} or {@code System.err}. */
    public static AccessLog to(PrintStream out) {
        Objects.requireNonNull(out, "out");
        return new AccessLog(out::println, out::flush);
    }

    /** Appends each line to the file at {@code path}, created if missing, and flushes it after each line. */
    public static AccessLog toFile(Path path) {
        try {
            OutputStream out = Files.newOutputStream(path, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
            return new AccessLog(print::println, print::close);
        } catch (IOException e) {
            throw new UncheckedIOException("access log: cannot open " + path, e);
        }
    }

    /** Closes the file of {@link #toFile}; a stream or sink given by the caller stays open. */
    @Override
    public void close() {
        closer.run();
    }

    void write(Entry entry) {
        sink.accept(format(entry));
    }

    /** What one line says. */
    record Entry(long epochNanos, String method, String target, String outcome, long durationNanos, String principal,
                 String session, String traceId, Era era, String requestId) {
    }

    static String format(Entry e) {
        StringWriter out = new StringWriter(192);
        try (JsonGenerator g = JSON.createGenerator(ObjectWriteContext.empty(), out)) {
            g.writeStartObject();
            g.writeStringProperty("time",
                    Instant.ofEpochSecond(0, e.epochNanos()).toString());
            g.writeStringProperty("method", e.method());
            optional(g, "target", e.target());
            g.writeStringProperty("outcome", e.outcome());
            g.writeNumberProperty("duration_ms", Math.max(0, e.durationNanos()) / 1_000 / 1e3);
            optional(g, "principal", e.principal());
            optional(g, "session", e.session());
            optional(g, "trace_id", e.traceId());
            if (e.era() != null) {
                g.writeStringProperty("era", e.era().label());
            }
            optional(g, "request_id", e.requestId());
            g.writeEndObject();
        }
        return out.toString();
    }

    private static void optional(JsonGenerator g, String name, String value) {
        if (value != null) {
            g.writeStringProperty(name, value);
        }
    }
}
