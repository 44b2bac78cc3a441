package dev.tern.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * Rows of runs from several results, with ratios against a baseline row: latency and CPU ratios above 1 mean
 * slower or costlier than the baseline, throughput ratios above 1 mean more requests per second.
 */
public final class Comparison {

    /** One compared run. */
    public record Row(String label, RunResult run) {
    }

    private final List<Row> rows;
    private final Row baseline;
    private final List<BenchResult> results;

    private Comparison(List<Row> rows, Row baseline, List<BenchResult> results) {
        this.rows = List.copyOf(rows);
        this.baseline = baseline;
        this.results = List.copyOf(results);
    }

    static Comparison of(List<BenchResult> results, String baselineLabel) {
        if (results.isEmpty()) {
            throw new IllegalArgumentException("results: none (expected: at least one)");
        }
        List<Row> rows = new ArrayList<>();
        for (BenchResult r : results) {
            String label = r.label() == null || r.label().isBlank() ? "result " + (rows.size() + 1) : r.label();
            for (RunResult run : r.runs()) {
                String rowLabel = r.runs().size() == 1 ? label : results.size() == 1 ? run.name()
                        : label + " " + run.name();
                rows.add(new Row(rowLabel, run));
            }
        }
        Row base = null;
        if (baselineLabel != null) {
            for (Row row : rows) {
                if (row.label().equals(baselineLabel)) {
                    base = row;
                    break;
                }
            }
            if (base == null) {
                for (Row row : rows) {
                    if (row.label().startsWith(baselineLabel + " ")) {
                        base = row;
                        break;
                    }
                }
            }
            for (int i = 0, first = 0; base == null && i < results.size(); first += results.get(i).runs().size(), i++) {
                if (baselineLabel.equals(results.get(i).label()) && !results.get(i).runs().isEmpty()) {
                    base = rows.get(first);
                }
            }
            if (base == null) {
                throw new IllegalArgumentException("baseline: \"" + baselineLabel + "\" (expected one of: "
                        + rows.stream().map(Row::label).toList() + ")");
            }
        }
        return new Comparison(rows, base, results);
    }

    public List<Row> rows() {
        return rows;
    }

    /** The baseline row; null when none was chosen. */
    public Row baseline() {
        return baseline;
    }

    List<BenchResult> results() {
        return results;
    }

    /** {@code value / baseline value}; NaN when either is missing or the baseline is 0. */
    static double ratio(double value, double base) {
        return base > 0 && value >= 0 ? value / base : Double.NaN;
    }

    public String markdown() {
        return MarkdownReport.comparison(this);
    }

    public String html() {
        return HtmlReport.comparison(this);
    }
}
