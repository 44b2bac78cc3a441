package dev.tern.bench;

import java.util.ArrayList;
import java.util.List;

/** A titled table of text cells, rendered as Markdown or HTML. The first column is left-aligned, the others right. */
record Table(String title, List<String> headers, List<List<String>> rows, String note) {

    Table {
        headers = List.copyOf(headers);
        rows = List.copyOf(rows);
    }

    static Builder builder(String title, String... headers) {
        return new Builder(title, List.of(headers));
    }

    static final class Builder {
        private final String title;
        private final List<String> headers;
        private final List<List<String>> rows = new ArrayList<>();
        private String note;

        private Builder(String title, List<String> headers) {
            this.title = title;
            this.headers = headers;
        }

        Builder row(String... cells) {
            if (cells.length != headers.size()) {
                throw new IllegalArgumentException("cells: " + cells.length + " (expected: " + headers.size() + ")");
            }
            rows.add(List.of(cells));
            return this;
        }

        Builder note(String text) {
            this.note = text;
            return this;
        }

        boolean isEmpty() {
            return rows.isEmpty();
        }

        Table build() {
            return new Table(title, headers, rows, note);
        }
    }

    String markdown() {
        StringBuilder b = new StringBuilder();
        if (title != null) {
            b.append("### ").append(title).append("\n\n");
        }
        b.append('|');
        for (String h : headers) {
            b.append(' ').append(escape(h)).append(" |");
        }
        b.append("\n|");
        for (int i = 0; i < headers.size(); i++) {
            b.append(i == 0 ? "---|" : "---:|");
        }
        b.append('\n');
        for (List<String> row : rows) {
            b.append('|');
            for (String cell : row) {
                b.append(' ').append(escape(cell)).append(" |");
            }
            b.append('\n');
        }
        if (note != null) {
            b.append('\n').append(note).append('\n');
        }
        return b.toString();
    }

    String html() {
        StringBuilder b = new StringBuilder();
        if (title != null) {
            b.append("<h3>").append(Html.escape(title)).append("</h3>\n");
        }
        b.append("<table><thead><tr>");
        for (String h : headers) {
            b.append("<th>").append(Html.escape(h)).append("</th>");
        }
        b.append("</tr></thead><tbody>\n");
        for (List<String> row : rows) {
            b.append("<tr>");
            for (int i = 0; i < row.size(); i++) {
                b.append(i == 0 ? "<td>" : "<td class=\"n\">").append(Html.escape(row.get(i))).append("</td>");
            }
            b.append("</tr>\n");
        }
        b.append("</tbody></table>\n");
        if (note != null) {
            b.append("<p class=\"note\">").append(Html.escape(note)).append("</p>\n");
        }
        return b.toString();
    }

    private static String escape(String cell) {
        return cell.replace("|", "\\|").replace("\n", " ");
    }
}
