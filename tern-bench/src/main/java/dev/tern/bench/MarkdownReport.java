package dev.tern.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The tables of a result or a comparison, and their Markdown rendering. */
final class MarkdownReport {
    private MarkdownReport() {
    }

    static String of(BenchResult result) {
        StringBuilder b = new StringBuilder();
        b.append("## ").append(heading(result)).append("\n\n");
        b.append(context(result)).append("\n\n");
        for (Table t : tables(result)) {
            b.append(t.markdown()).append('\n');
        }
        return b.toString();
    }

    static String comparison(Comparison c) {
        StringBuilder b = new StringBuilder();
        b.append("## Comparison").append(c.baseline() == null ? "" : " against " + c.baseline().label())
                .append("\n\n");
        for (Table t : comparisonTables(c)) {
            b.append(t.markdown()).append('\n');
        }
        return b.toString();
    }

    static String heading(BenchResult result) {
        String label = result.label() == null || result.label().isBlank() ? "tern bench" : result.label();
        if (result.runs().isEmpty() || label.equals(result.runs().get(0).target())) {
            return label;
        }
        return label + ": " + result.runs().get(0).target();
    }

    static String context(BenchResult result) {
        StringBuilder b = new StringBuilder();
        if (!result.runs().isEmpty()) {
            RunResult first = result.runs().get(0);
            b.append("Workload ").append(first.workload()).append("; warm-up ")
                    .append(Figures.number(first.warmupSeconds())).append(" s excluded. ");
        }
        BenchResult.Environment e = result.environment();
        if (e != null) {
            b.append(e.cpus()).append(" CPUs, ").append(e.os()).append(", Java ").append(e.java()).append("; ");
        }
        b.append(result.createdAt()).append('.');
        if (result.coldStart() != null) {
            ColdStart cs = result.coldStart();
            b.append("\n\nCold start: first successful reply ").append(Figures.ms(cs.startToFirstCallMs()))
                    .append(" ms after starting `").append(cs.command()).append("` (that request took ")
                    .append(Figures.ms(cs.firstCallMs())).append(" ms; ").append(cs.attempts())
                    .append(cs.attempts() == 1 ? " attempt)." : " attempts).");
        }
        return b.toString();
    }

    static String load(RunResult r) {
        if (!"open".equals(r.mode())) {
            return "closed " + r.connections() + " conn";
        }
        if (r.phases() == null) {
            return "open " + Figures.number(r.rate()) + "/s" + (r.connections() > 0 ? ", " + r.connections()
                    + " conn" : "");
        }
        StringBuilder b = new StringBuilder("open ");
        for (PhaseResult p : r.phases()) {
            b.append(b.length() > 5 ? "→" : "").append(Figures.number(p.rate()));
        }
        return b.append("/s").toString();
    }

    static String latency(Latency l, java.util.function.ToDoubleFunction<Latency> f) {
        return l == null ? "–" : Figures.ms(f.applyAsDouble(l));
    }

    static String cpuPerCall(RunResult r) {
        return r.process() == null ? "–" : Figures.micros(r.process().cpuPerCallMicros());
    }

    static String rss(RunResult r) {
        return r.process() == null || r.process().rssMaxBytes() == 0 ? "–" : Figures.bytes(r.process().rssMaxBytes());
    }

    static List<Table> tables(BenchResult result) {
        List<Table> out = new ArrayList<>();
        List<RunResult> runs = result.runs();
        Table.Builder main = Table.builder(null, "run", "load", "req/s", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms",
                "max ms", "ok", "errors", "CPU/call µs", "RSS");
        for (RunResult r : runs) {
            main.row(r.name(), load(r), Figures.number(Math.round(r.throughput())), latency(r.latency(), Latency::p50Ms),
                    latency(r.latency(), Latency::p90Ms), latency(r.latency(), Latency::p99Ms),
                    latency(r.latency(), Latency::p999Ms), latency(r.latency(), Latency::maxMs),
                    Figures.number(r.ok()), Figures.number(r.errorCount()), cpuPerCall(r), rss(r));
        }
        out.add(main.note(runs.stream().anyMatch(r -> "open".equals(r.mode()))
                ? "Open loop: latency timed from each request's intended send time (coordinated omission corrected)."
                : null).build());

        Table.Builder conn = Table.builder("Connections and first byte", "run", "TTFB p50 ms", "TTFB p99 ms",
                "connections", "connect p50 ms", "TLS full", "full p50 ms", "TLS resumed", "resumed p50 ms",
                "resumption", "TLS failed");
        for (RunResult r : runs) {
            if (r.ttfb() == null && r.connect() == null && r.tls() == null) {
                continue;
            }
            TlsFigures tls = r.tls();
            conn.row(r.name(), latency(r.ttfb(), Latency::p50Ms), latency(r.ttfb(), Latency::p99Ms),
                    r.connect() == null ? "–" : Figures.number(r.connect().count()),
                    latency(r.connect(), Latency::p50Ms),
                    tls == null ? "–" : Figures.number(tls.full()),
                    tls == null ? "–" : latency(tls.fullHandshake(), Latency::p50Ms),
                    tls == null ? "–" : Figures.number(tls.resumed()),
                    tls == null ? "–" : latency(tls.resumedHandshake(), Latency::p50Ms),
                    tls == null ? "–" : Math.round(tls.resumptionRate() * 100) + " %",
                    tls == null ? "–" : Figures.number(tls.failed()));
        }
        if (!conn.isEmpty()) {
            out.add(conn.note("Connections and handshakes include the warm-up.").build());
        }

        Table.Builder split = Table.builder("Server split (Server-Timing)", "run", "replies", "parse p50/p99 ms",
                "queue p50/p99 ms", "execute p50/p99 ms", "serialize p50/p99 ms");
        for (RunResult r : runs) {
            ServerSplit s = r.serverSplit();
            if (s != null) {
                split.row(r.name(), Figures.number(s.count()), pair(s.parse()), pair(s.queue()), pair(s.exec()),
                        pair(s.serialize()));
            }
        }
        if (!split.isEmpty()) {
            out.add(split.build());
        }

        Table.Builder phases = Table.builder("Rate steps", "run", "step", "rate/s", "seconds", "req/s", "p50 ms",
                "p99 ms", "max ms", "errors");
        for (RunResult r : runs) {
            if (r.phases() == null) {
                continue;
            }
            int i = 1;
            for (PhaseResult p : r.phases()) {
                phases.row(r.name(), Integer.toString(i++), Figures.number(p.rate()), Figures.number(p.seconds()),
                        Figures.number(Math.round(p.throughput())), latency(p.latency(), Latency::p50Ms),
                        latency(p.latency(), Latency::p99Ms), latency(p.latency(), Latency::maxMs),
                        Figures.number(p.errors()));
            }
        }
        if (!phases.isEmpty()) {
            out.add(phases.build());
        }

        Table.Builder errors = Table.builder("Errors", "run", "kind", "count", "first");
        for (RunResult r : runs) {
            if (r.errors() == null) {
                continue;
            }
            for (Map.Entry<String, Long> e : r.errors().entrySet()) {
                String sample = r.errorSamples() == null ? "" : r.errorSamples().getOrDefault(e.getKey(), "");
                errors.row(r.name(), e.getKey(), Figures.number(e.getValue()),
                        sample.length() > 120 ? sample.substring(0, 117) + "..." : sample);
            }
        }
        if (!errors.isEmpty()) {
            out.add(errors.build());
        }
        return out;
    }

    private static String pair(Latency l) {
        return l == null ? "–" : Figures.ms(l.p50Ms()) + " / " + Figures.ms(l.p99Ms());
    }

    static List<Table> comparisonTables(Comparison c) {
        Comparison.Row base = c.baseline();
        List<String> headers = new ArrayList<>(List.of("target", "load", "req/s", "p50 ms", "p99 ms", "max ms",
                "errors", "CPU/call µs", "RSS"));
        if (base != null) {
            headers.addAll(List.of("req/s ×", "p50 ×", "p99 ×", "CPU/call ×"));
        }
        Table.Builder t = Table.builder(null, headers.toArray(String[]::new));
        for (Comparison.Row row : c.rows()) {
            RunResult r = row.run();
            List<String> cells = new ArrayList<>(List.of(row.label(), load(r),
                    Figures.number(Math.round(r.throughput())), latency(r.latency(), Latency::p50Ms),
                    latency(r.latency(), Latency::p99Ms), latency(r.latency(), Latency::maxMs),
                    Figures.number(r.errorCount()), cpuPerCall(r), rss(r)));
            if (base != null) {
                RunResult b = base.run();
                cells.add(Figures.ratio(Comparison.ratio(r.throughput(), b.throughput())));
                cells.add(Figures.ratio(ratioOf(r.latency(), b.latency(), Latency::p50Ms)));
                cells.add(Figures.ratio(ratioOf(r.latency(), b.latency(), Latency::p99Ms)));
                cells.add(Figures.ratio(r.process() == null || b.process() == null ? Double.NaN
                        : Comparison.ratio(r.process().cpuPerCallMicros(), b.process().cpuPerCallMicros())));
            }
            t.row(cells.toArray(String[]::new));
        }
        if (base != null) {
            t.note("Ratios against " + base.label() + ": req/s above 1× is more throughput; latency and CPU above 1× "
                    + "is slower or costlier.");
        }
        return List.of(t.build());
    }

    private static double ratioOf(Latency value, Latency base, java.util.function.ToDoubleFunction<Latency> f) {
        return value == null || base == null ? Double.NaN
                : Comparison.ratio(f.applyAsDouble(value), f.applyAsDouble(base));
    }
}
