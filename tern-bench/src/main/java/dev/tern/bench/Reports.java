package dev.tern.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;

import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** Results as JSON (to keep and merge), Markdown (for a terminal or a write-up) and a self-contained HTML page. */
public final class Reports {
    static final JsonMapper JSON = JsonMapper.builder()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .changeDefaultPropertyInclusion(incl -> incl.withValueInclusion(JsonInclude.Include.NON_NULL))
            .build();

    private Reports() {
    }

    public static String json(BenchResult result) {
        return JSON.writeValueAsString(result);
    }

    public static BenchResult readJson(Path file) throws IOException {
        try {
            return JSON.readValue(file.toFile(), BenchResult.class);
        } catch (tools.jackson.core.JacksonException e) {
            throw new IOException(file + ": not a bench result: " + e.getOriginalMessage(), e);
        }
    }

    /** The result as Markdown: a table of runs, then connection, server-split, burst and error details present. */
    public static String markdown(BenchResult result) {
        return MarkdownReport.of(result);
    }

    /** A self-contained HTML page with tables and charts (the charting library is inlined; no network needed). */
    public static String html(BenchResult result) {
        return HtmlReport.of(result);
    }

    /**
     * Several results side by side, with ratios against the runs labelled {@code baseline}. A result with one run
     * is one row named by its label; a result with several gives a row per run ({@code label run}), or just the
     * run's name when it is the only result.
     */
    public static Comparison compare(List<BenchResult> results, String baseline) {
        return Comparison.of(results, baseline);
    }

    public static void write(Path file, String content) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, content);
    }
}
