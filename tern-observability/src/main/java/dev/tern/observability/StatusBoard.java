package dev.tern.observability;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import dev.tern.protocol.Json;

import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The live figures of {@code /status}: requests and errors per second over the last minute, latency percentiles per
 * method and tool over the last minute, the transport's open sessions, listens and streams, and the latest errors.
 * Recording a request costs a few atomic increments; the figures are put together only when {@link #json()} is read,
 * at most once per {@link #JSON_REUSE_MILLIS} however many pages poll it.
 */
public final class StatusBoard {
    /** Seconds of history in the per-second series and in the latency percentiles. */
    static final int WINDOW_SECONDS = 60;
    /** Seconds the current request and error rates are averaged over. */
    static final int RATE_SECONDS = 10;
    /** Seconds per slot of an operation's latency window. */
    static final int SLOT_SECONDS = 10;
    /** Distinct methods and targets kept apart; further ones are counted together as {@link Operations#OTHER}. */
    static final int MAX_OPERATIONS = 200;
    static final int RECENT_ERRORS = 20;
    static final int MESSAGE_LIMIT = 300;
    static final long JSON_REUSE_MILLIS = 500;
    private static final long SECOND = 1_000_000_000L;

    private final long startNanos;
    private final EpochClock clock;
    private final Supplier<Map<String, Long>> gauges;
    private final PerSecond series = new PerSecond(WINDOW_SECONDS);
    private final ConcurrentHashMap<String, OperationStats> operations = new ConcurrentHashMap<>();
    private final ArrayDeque<ObjectNode> recentErrors = new ArrayDeque<>(RECENT_ERRORS);
    private volatile Rendered rendered;

    private record Rendered(long nanoTime, byte[] json) {
    }

    StatusBoard(EpochClock clock, Supplier<Map<String, Long>> gauges, long startNanos) {
        this.clock = clock;
        this.gauges = gauges;
        this.startNanos = startNanos;
    }

    /** One request or notification answered (or refused) at {@code ended} after {@code durationNanos}. */
    void record(String method, String target, long ended, long durationNanos, String errorType, String message) {
        long second = Math.floorDiv(ended - startNanos, SECOND);
        boolean error = errorType != null;
        series.add(second, error);
        operation(method, target).add(second, durationNanos, error);
        if (error) {
            ObjectNode e = Json.object();
            e.put("time", Instant.ofEpochSecond(0, clock.epochNanos(ended)).toString());
            e.put("method", method);
            if (target != null) {
                e.put("target", target);
            }
            e.put("error", errorType);
            if (message != null && !message.isEmpty()) {
                e.put("message", message.length() > MESSAGE_LIMIT ? message.substring(0, MESSAGE_LIMIT) + "…" : message);
            }
            synchronized (recentErrors) {
                if (recentErrors.size() == RECENT_ERRORS) {
                    recentErrors.removeFirst();
                }
                recentErrors.addLast(e);
            }
        }
    }

    private OperationStats operation(String method, String target) {
        String key = target == null ? method : method + " " + target;
        OperationStats stats = operations.get(key);
        if (stats != null) {
            return stats;
        }
        if (operations.size() >= MAX_OPERATIONS) {
            return operations.computeIfAbsent(Operations.OTHER, k -> new OperationStats(Operations.OTHER, null));
        }
        return operations.computeIfAbsent(key, k -> new OperationStats(method, target));
    }

    /** The figures as JSON ({@code /status.json}); the same bytes for calls less than half a second apart. */
    public byte[] json() {
        long now = System.nanoTime();
        Rendered r = rendered;
        if (r != null && now - r.nanoTime < JSON_REUSE_MILLIS * 1_000_000L) {
            return r.json.clone();
        }
        byte[] json = Json.mapper().writeValueAsBytes(render(now));
        rendered = new Rendered(now, json);
        return json.clone();
    }

    ObjectNode render(long now) {
        long current = Math.floorDiv(now - startNanos, SECOND);
        ObjectNode root = Json.object();
        root.put("now", Instant.ofEpochSecond(0, clock.epochNanos(now)).toString());
        root.put("started", Instant.ofEpochSecond(0, clock.epochNanos(startNanos)).toString());
        root.put("uptime_seconds", (now - startNanos) / (double) SECOND);

        // Whole seconds only: the second under way would make the rate dip at every refresh.
        long[] requests = new long[WINDOW_SECONDS];
        long[] errors = new long[WINDOW_SECONDS];
        series.read(current - 1, requests, errors);
        long seconds = Math.max(1, Math.min(RATE_SECONDS, current));
        long recentRequests = 0;
        long recentErrorCount = 0;
        for (int i = WINDOW_SECONDS - RATE_SECONDS; i < WINDOW_SECONDS; i++) {
            recentRequests += requests[i];
            recentErrorCount += errors[i];
        }
        root.put("rate_seconds", seconds);
        root.put("requests_per_second", recentRequests / (double) seconds);
        root.put("errors_per_second", recentErrorCount / (double) seconds);
        if (recentRequests > 0) {
            root.put("error_ratio", recentErrorCount / (double) recentRequests);
        } else {
            root.putNull("error_ratio");
        }
        ObjectNode s = root.putObject("series");
        s.put("interval_seconds", 1);
        ArrayNode rq = s.putArray("requests");
        ArrayNode er = s.putArray("errors");
        for (int i = 0; i < WINDOW_SECONDS; i++) {
            rq.add(requests[i]);
            er.add(errors[i]);
        }

        ObjectNode g = root.putObject("gauges");
        gauges.get().forEach(g::put);

        ArrayNode ops = root.putArray("operations");
        List<OperationStats> sorted = new ArrayList<>(operations.values());
        sorted.sort(Comparator.comparing((OperationStats o) -> o.method)
                .thenComparing(o -> o.target == null ? "" : o.target));
        for (OperationStats o : sorted) {
            o.render(ops.addObject(), current);
        }

        ArrayNode errs = root.putArray("recent_errors");
        synchronized (recentErrors) {
            // newest first
            recentErrors.descendingIterator().forEachRemaining(errs::add);
        }
        return root;
    }

    /** Requests and errors per second in a ring of seconds, each slot reset when its second comes round again. */
    private static final class PerSecond {
        final int size;
        final AtomicLongArray stamps;
        final AtomicLongArray counts;
        final AtomicLongArray errors;

        PerSecond(int size) {
            this.size = size;
            this.stamps = new AtomicLongArray(size);
            this.counts = new AtomicLongArray(size);
            this.errors = new AtomicLongArray(size);
            for (int i = 0; i < size; i++) {
                stamps.set(i, -1);
            }
        }

        void add(long second, boolean error) {
            int slot = (int) Math.floorMod(second, (long) size);
            claim(slot, second);
            counts.incrementAndGet(slot);
            if (error) {
                errors.incrementAndGet(slot);
            }
        }

        private void claim(int slot, long second) {
            if (stamps.get(slot) != second) {
                synchronized (this) {
                    if (stamps.get(slot) != second) {
                        counts.set(slot, 0);
                        errors.set(slot, 0);
                        stamps.set(slot, second);
                    }
                }
            }
        }

        /** The counts of the {@code size} seconds up to {@code last}, oldest first; seconds without a slot are 0. */
        void read(long last, long[] countsOut, long[] errorsOut) {
            for (int i = 0; i < size; i++) {
                long second = last - size + 1 + i;
                int slot = (int) Math.floorMod(second, (long) size);
                if (second >= 0 && stamps.get(slot) == second) {
                    countsOut[i] = counts.get(slot);
                    errorsOut[i] = errors.get(slot);
                }
            }
        }
    }

    /** One method and target: totals since start, and a latency histogram per slot of the last minute. */
    private static final class OperationStats {
        static final int SLOTS = WINDOW_SECONDS / SLOT_SECONDS;

        final String method;
        final String target;
        final LongAdder count = new LongAdder();
        final LongAdder errors = new LongAdder();
        final AtomicLongArray stamps = new AtomicLongArray(SLOTS);
        final AtomicLongArray slotCounts = new AtomicLongArray(SLOTS);
        final AtomicLongArray slotErrors = new AtomicLongArray(SLOTS);
        final AtomicLongArray buckets = new AtomicLongArray(SLOTS * LatencyBuckets.COUNT);

        OperationStats(String method, String target) {
            this.method = method;
            this.target = target;
            for (int i = 0; i < SLOTS; i++) {
                stamps.set(i, -1);
            }
        }

        void add(long second, long durationNanos, boolean error) {
            count.increment();
            long period = Math.floorDiv(second, SLOT_SECONDS);
            int slot = (int) Math.floorMod(period, (long) SLOTS);
            if (stamps.get(slot) != period) {
                synchronized (this) {
                    if (stamps.get(slot) != period) {
                        for (int b = 0; b < LatencyBuckets.COUNT; b++) {
                            buckets.set(slot * LatencyBuckets.COUNT + b, 0);
                        }
                        slotCounts.set(slot, 0);
                        slotErrors.set(slot, 0);
                        stamps.set(slot, period);
                    }
                }
            }
            buckets.incrementAndGet(slot * LatencyBuckets.COUNT + LatencyBuckets.index(durationNanos / 1_000));
            slotCounts.incrementAndGet(slot);
            if (error) {
                errors.increment();
                slotErrors.incrementAndGet(slot);
            }
        }

        void render(ObjectNode o, long currentSecond) {
            o.put("method", method);
            if (target != null) {
                o.put("target", target);
            } else {
                o.putNull("target");
            }
            o.put("count", count.sum());
            o.put("errors", errors.sum());
            long period = Math.floorDiv(currentSecond, SLOT_SECONDS);
            long[] merged = new long[LatencyBuckets.COUNT];
            long windowCount = 0;
            long windowErrors = 0;
            for (int slot = 0; slot < SLOTS; slot++) {
                long stamp = stamps.get(slot);
                // The slot under way and the five before it: the last 50 to 60 seconds.
                if (stamp < 0 || stamp > period || stamp <= period - SLOTS) {
                    continue;
                }
                windowCount += slotCounts.get(slot);
                windowErrors += slotErrors.get(slot);
                for (int b = 0; b < LatencyBuckets.COUNT; b++) {
                    merged[b] += buckets.get(slot * LatencyBuckets.COUNT + b);
                }
            }
            o.put("window_count", windowCount);
            o.put("window_errors", windowErrors);
            percentile(o, "p50_ms", merged, 0.50);
            percentile(o, "p90_ms", merged, 0.90);
            percentile(o, "p99_ms", merged, 0.99);
            percentile(o, "max_ms", merged, 1.0);
        }

        private static void percentile(ObjectNode o, String name, long[] merged, double q) {
            long micros = LatencyBuckets.quantile(merged, q);
            if (micros < 0) {
                o.putNull(name);
            } else {
                o.put(name, micros / 1000.0);
            }
        }
    }

    /** The page: self-contained HTML whose one script and one style sheet {@link #CONTENT_SECURITY_POLICY} allows by hash. */
    public static byte[] page() {
        return Page.HTML.clone();
    }

    /**
     * The {@code Content-Security-Policy} to serve {@link #page()} with: nothing but its own inline script and style
     * (by hash) and requests to its own origin.
     */
    public static final String CONTENT_SECURITY_POLICY = Page.CSP;

    private static final class Page {
        static final byte[] HTML;
        static final String CSP;

        static {
            String css = resource("status.css");
            String js = resource("status.js");
            String html = resource("status.html").replace("{{style}}", css).replace("{{script}}", js);
            HTML = html.getBytes(StandardCharsets.UTF_8);
            CSP = "default-src 'none'; script-src '" + sha256(js) + "'; style-src '" + sha256(css) + "'; "
                    + "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; "
                    + "frame-ancestors 'none'";
        }

        private static String resource(String name) {
            try (InputStream in = StatusBoard.class.getResourceAsStream(name)) {
                if (in == null) {
                    throw new IllegalStateException("missing resource " + name);
                }
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private static String sha256(String text) {
            try {
                byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
                return "sha256-" + Base64.getEncoder().encodeToString(digest);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
