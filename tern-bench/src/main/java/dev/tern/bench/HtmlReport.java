package dev.tern.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * A self-contained HTML page: tables, the results as JSON, and charts drawn by Apache ECharts, whose minified build
 * (with its licence header) is inlined so that the page opens without a network.
 */
final class HtmlReport {
    private static volatile String echarts;
    private static volatile String echartsVersion;

    private HtmlReport() {
    }

    static String of(BenchResult result) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (RunResult run : result.runs()) {
            String label = result.runs().size() == 1 && result.label() != null && !result.label().isBlank()
                    ? result.label() : run.name();
            rows.add(row(label, run));
        }
        String title = MarkdownReport.heading(result);
        StringBuilder body = new StringBuilder();
        body.append("<p class=\"context\">").append(Html.escape(MarkdownReport.context(result))).append("</p>\n");
        for (Table t : MarkdownReport.tables(result)) {
            body.append(t.html());
        }
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("title", title);
        data.put("rows", rows);
        data.put("results", List.of(result));
        return page(title, body.toString(), data);
    }

    static String comparison(Comparison c) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Comparison.Row row : c.rows()) {
            rows.add(row(row.label(), row.run()));
        }
        String title = "Comparison" + (c.baseline() == null ? "" : " against " + c.baseline().label());
        StringBuilder body = new StringBuilder();
        for (Table t : MarkdownReport.comparisonTables(c)) {
            body.append(t.html());
        }
        for (BenchResult r : c.results()) {
            body.append("<h2>").append(Html.escape(MarkdownReport.heading(r))).append("</h2>\n");
            body.append("<p class=\"context\">").append(Html.escape(MarkdownReport.context(r))).append("</p>\n");
            for (Table t : MarkdownReport.tables(r)) {
                body.append(t.html());
            }
        }
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("title", title);
        data.put("baseline", c.baseline() == null ? null : c.baseline().label());
        data.put("rows", rows);
        data.put("results", c.results());
        return page(title, body.toString(), data);
    }

    private static Map<String, Object> row(String label, RunResult run) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("label", label);
        m.put("run", run);
        return m;
    }

    private static String page(String title, String body, Map<String, Object> data) {
        // Inside <script>, "</" would end the element early: JSON allows writing '<' as an escape instead.
        String json = Reports.JSON.writeValueAsString(data).replace("<", "\\u003c");
        StringBuilder b = new StringBuilder(1_200_000);
        b.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
                .append("<title>").append(Html.escape(title)).append("</title>\n<style>\n")
                .append(resource("report.css")).append("</style>\n</head>\n<body>\n<h1>")
                .append(Html.escape(title)).append("</h1>\n").append(body)
                .append("<h2>Charts</h2>\n<div id=\"charts\"></div>\n")
                .append("<script type=\"application/json\" id=\"bench-data\">").append(json).append("</script>\n")
                .append("<script>\n").append(echarts()).append("\n</script>\n")
                .append("<script>\n").append(resource("report.js")).append("</script>\n")
                .append("<footer>Made by tern bench. Charts by Apache ECharts ").append(echartsVersion)
                .append(" (Apache License 2.0), inlined above with its licence header.</footer>\n")
                .append("</body>\n</html>\n");
        return b.toString();
    }

    private static String resource(String name) {
        try (InputStream in = HtmlReport.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String echarts() {
        String js = echarts;
        if (js == null) {
            Properties p = new Properties();
            try (InputStream in = HtmlReport.class.getResourceAsStream("echarts.properties")) {
                p.load(in);
            } catch (IOException | NullPointerException e) {
                throw new IllegalStateException("missing echarts.properties", e);
            }
            String path = p.getProperty("path");
            try (InputStream in = HtmlReport.class.getClassLoader().getResourceAsStream(path)) {
                if (in == null) {
                    throw new IllegalStateException("Apache ECharts is not on the class path: " + path);
                }
                js = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (js.contains("</script")) {
                throw new IllegalStateException(path + " contains </script and cannot be inlined");
            }
            echartsVersion = p.getProperty("version");
            echarts = js;
        }
        return js;
    }
}
