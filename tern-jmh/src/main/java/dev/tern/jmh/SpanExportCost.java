package dev.tern.jmh;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.tern.observability.Observability;
import dev.tern.server.observe.Era;
import dev.tern.server.observe.McpObserver;
import dev.tern.server.observe.RequestObservation;
import dev.tern.server.observe.Transport;

/**
 * What a traced request costs with its span exported over OTLP/HTTP, apart from the server around it: one thread makes
 * the observer calls of a 2026-07-28 {@code tools/call} (or a session's, with {@code legacy}) at a steady rate, as an
 * event loop would, and the SDK exports every span to the endpoint. It prints the CPU time per request of each thread
 * (the calling one, the span processor's, the HTTP client's), the calling thread's allocation per request, the time in
 * garbage collection and the spans dropped, over a measured run after a warm-up of the same length.
 *
 * <pre>java -cp tern-jmh/target/tern-jmh.jar dev.tern.jmh.SpanExportCost ENDPOINT [RATE [SECONDS [modern|legacy]]]</pre>
 *
 * ENDPOINT is an OTLP/HTTP base URL such as {@code bench/local-otlp-sink.py}'s; the other {@code OTEL_*} variables and
 * their {@code -Dotel.*} system properties apply, such as {@code OTEL_BSP_MAX_EXPORT_BATCH_SIZE} or
 * {@code -Dotel.java.exporter.memory_mode=immutable_data}.
 */
public final class SpanExportCost {
    private static final Pattern DROPPED = Pattern.compile("dropped (\\d+) span");

    private SpanExportCost() {
    }

    public static void main(String[] args) throws Exception {
        String endpoint = args[0];
        int rate = args.length > 1 ? Integer.parseInt(args[1]) : 30_000;
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 8;
        boolean legacy = args.length > 3 && args[3].equals("legacy");
        AtomicLong dropped = new AtomicLong();
        Logger processor = Logger.getLogger("io.opentelemetry.sdk.trace.export.BatchSpanProcessor");
        processor.addHandler(new Handler() {
            @Override
            public void publish(LogRecord record) {
                Matcher m = DROPPED.matcher(String.valueOf(record.getMessage()));
                if (m.find()) {
                    dropped.addAndGet(Long.parseLong(m.group(1)));
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        });
        try (Observability o = Observability.builder().tracing(true)
                .property("otel.exporter.otlp.endpoint", endpoint)
                .property("otel.metrics.exporter", "none")
                .build()) {
            McpObserver observer = o.observer();
            run(observer, rate, seconds, legacy);
            Thread.sleep(3_000);
            dropped.set(0);
            var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            Map<Long, String> names = new HashMap<>();
            Map<Long, Long> before = cpu(names);
            long gc = gcMillis();
            long allocated = threads.getCurrentThreadAllocatedBytes();
            long n = run(observer, rate, seconds, legacy);
            allocated = threads.getCurrentThreadAllocatedBytes() - allocated;
            // The spans of the run's last moments are exported after it.
            Thread.sleep(6_000);
            gc = gcMillis() - gc;
            Map<Long, Long> after = cpu(names);
            long self = Thread.currentThread().threadId();
            Map<String, Long> perThread = new TreeMap<>();
            after.forEach((id, t) -> perThread.merge(id == self ? "calling thread" : names.get(id).replaceAll("\\d+",
                    "N"), t - before.getOrDefault(id, 0L), Long::sum));
            long others = 0;
            StringBuilder out = new StringBuilder();
            for (var e : perThread.entrySet()) {
                if (e.getValue() > n) {
                    out.append(String.format("  %-36s %6.2f µs a request%n", e.getKey(), e.getValue() / 1e3 / n));
                    others += e.getKey().equals("calling thread") ? 0 : e.getValue();
                }
            }
            System.out.printf("%s tools/call, %,d requests at %,d/s: calling thread %.2f µs and %,d B a request; other"
                    + " threads %.2f µs a request; garbage collection %.2f µs a request; %,d spans dropped%n%s",
                    legacy ? "session" : "2026-07-28", n, rate, perThread.get("calling thread") / 1e3 / n,
                    allocated / n, others / 1e3 / n, gc * 1e3 / n, dropped.get(), out);
        }
        System.exit(0);
    }

    private static Map<Long, Long> cpu(Map<Long, String> names) {
        var threads = ManagementFactory.getThreadMXBean();
        Map<Long, Long> cpu = new HashMap<>();
        for (var info : threads.dumpAllThreads(false, false)) {
            names.put(info.getThreadId(), info.getThreadName());
            cpu.put(info.getThreadId(), threads.getThreadCpuTime(info.getThreadId()));
        }
        return cpu;
    }

    private static long gcMillis() {
        long ms = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ms += gc.getCollectionTime();
        }
        return ms;
    }

    private static long id;

    /** The observer calls of {@code rate × seconds} requests, 32 at a time, paced to the rate. */
    private static long run(McpObserver observer, int rate, int seconds, boolean legacy) {
        long start = System.nanoTime();
        long total = (long) rate * seconds;
        long n = 0;
        while (n < total) {
            long due = start + n * 1_000_000_000L / rate;
            long now = System.nanoTime();
            if (due > now) {
                LockSupport.parkNanos(due - now);
            }
            for (int i = 0; i < 32; i++, n++) {
                long t = System.nanoTime();
                RequestObservation o = observer.request(Transport.HTTP_1_1, t).clientAddress("127.0.0.1")
                        .httpTraceContext(null, null, null)
                        .parsed(t + 1_000, "tools/call", "get_user")
                        .protocolVersion(legacy ? "2025-11-25" : "2026-07-28")
                        .era(legacy ? Era.SESSION : Era.STATELESS)
                        .metaTraceContext(null, null, null);
                if (legacy) {
                    o.session("8b0d1f0c2a7e4e5f9d3c1b2a4f6e8d0c");
                }
                o.requestId(++id);
                RequestObservation.Scope scope = o.handlerStarted(t + 2_000);
                o.handlerEnded(t + 3_000);
                scope.close();
                o.encodingStarted(t + 4_000).end(t + 5_000);
            }
        }
        return n;
    }
}
