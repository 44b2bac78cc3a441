package dev.tern.bench;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.tern.client.http.HttpCall;
import dev.tern.client.http.HttpClientEngine;
import dev.tern.client.http.HttpProtocol;
import dev.tern.client.http.HttpReply;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;

/**
 * What holding many legacy sessions and open SSE streams costs a server: opens {@code --sessions} 2025-11-25 sessions
 * ({@code initialize}, {@code notifications/initialized}) and leaves them idle, then opens the standalone GET stream
 * of the first {@code --streams} of them over h2c (many streams per connection, so the server's per-address
 * connection limit does not get in the way) and holds them open, then {@code --listens} 2026-07-28
 * {@code subscriptions/listen} streams over h2c alike (a Tern server holds as many as its session bound, 10,000 by
 * default, and answers more with 503, counted as errors here). Many clients hold them, as on a real server: the
 * connections come from loopback addresses 127.0.0.2 and up (Linux routes all of 127.0.0.0/8 to the loopback), at
 * most {@value #CLIENT_PLACES} sessions, and {@value #STREAMS_PER_CONNECTION} streams, from each, within the share of
 * each kind a Tern server gives one client (1,000 by default). Samples the server's RSS and live heap (after a full GC,
 * through {@code jcmd}) before, with the sessions, with the streams and with the listens; {@code --histograms DIR}
 * keeps each stage's heap histogram. With {@code --warm}, the same sessions are opened and deleted first, so that what
 * the traffic leaves behind (a grown heap, JIT code) is not counted as what the sessions hold.
 * Bounded in count and in time; meant for a server on 127.0.0.1.
 *
 * <pre>
 * java -cp tern-cli/target/tern.jar dev.tern.bench.HeldSessions --url http://127.0.0.1:8080/mcp --pid PID \
 *     --sessions 10000 --streams 5000 --listens 5000 --hold 10s
 * </pre>
 */
public final class HeldSessions {
    private static final String VERSION = "2025-11-25";
    private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
            + "\"protocolVersion\":\"" + VERSION + "\",\"capabilities\":{},"
            + "\"clientInfo\":{\"name\":\"tern-bench\",\"version\":\"1\"}}}";
    private static final String INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
    private static final String MODERN = "2026-07-28";
    private static final String LISTEN = "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"subscriptions/listen\",\"params\":{"
            + "\"notifications\":{\"toolsListChanged\":true},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\""
            + MODERN + "\",\"io.modelcontextprotocol/clientCapabilities\":{},"
            + "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"tern-bench\",\"version\":\"1\"}}}}";
    private static final int MAX_SESSIONS = 50_000;
    private static final int STREAMS_PER_CONNECTION = 200;
    private static final int SESSION_CONCURRENCY = 32;
    private static final int CLIENT_PLACES = 500;

    private final URI url;
    private final long pid;
    private final int sessionCount;
    private final int streamCount;
    private final int listenCount;
    private final Duration hold;
    private final Duration deadline;
    private final Path histogram;
    private final boolean warm;
    private final List<String> sessionIds = new ArrayList<>();
    private final AtomicInteger errors = new AtomicInteger();
    private final AtomicReference<String> firstError = new AtomicReference<>();

    private HeldSessions(URI url, long pid, int sessions, int streams, int listens, Duration hold, Duration deadline,
            Path histogram, boolean warm) {
        this.url = url;
        this.pid = pid;
        this.sessionCount = sessions;
        this.streamCount = streams;
        this.listenCount = listens;
        this.hold = hold;
        this.deadline = deadline;
        this.histogram = histogram;
        this.warm = warm;
    }

    public static void main(String[] args) throws Exception {
        String url = null;
        long pid = 0;
        int sessions = 1_000;
        int streams = 0;
        int listens = 0;
        Duration hold = Duration.ofSeconds(5);
        Duration deadline = Duration.ofMinutes(3);
        Path histogram = null;
        boolean warm = false;
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : "";
            switch (args[i]) {
                case "--url" -> url = value;
                case "--pid" -> pid = Long.parseLong(value);
                case "--sessions" -> sessions = Integer.parseInt(value);
                case "--streams" -> streams = Integer.parseInt(value);
                case "--listens" -> listens = Integer.parseInt(value);
                case "--hold" -> hold = Durations.parse(value);
                case "--deadline" -> deadline = Durations.parse(value);
                case "--histograms" -> histogram = Files.createDirectories(Path.of(value));
                case "--warm" -> {
                    warm = true;
                    i--;
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i] + " (expected: --url URL"
                        + " --pid PID [--sessions N] [--streams N] [--listens N] [--hold 5s] [--deadline 3m] [--histograms DIR] [--warm])");
            }
            i++;
        }
        URI uri = URI.create(url == null ? "http://127.0.0.1:8080/mcp" : url);
        if ("localhost".equals(uri.getHost())) { // IPv4: its clients connect from other 127.0.0.0/8 addresses
            uri = new URI(uri.getScheme(), null, "127.0.0.1", uri.getPort(), uri.getPath(), null, null);
        }
        if (!"127.0.0.1".equals(uri.getHost())) {
            throw new IllegalArgumentException("--url: " + uri + " (expected: a server on 127.0.0.1)");
        }
        if (pid <= 0 || sessions < 0 || sessions > MAX_SESSIONS || streams < 0 || streams > sessions || listens < 0
                || listens > MAX_SESSIONS) {
            throw new IllegalArgumentException("expected --pid > 0, 0 <= --streams <= --sessions <= " + MAX_SESSIONS
                    + ", 0 <= --listens <= " + MAX_SESSIONS);
        }
        int failures = new HeldSessions(uri, pid, sessions, streams, listens, hold, deadline, histogram, warm).run();
        System.exit(failures == 0 ? 0 : 1);
    }

    private int run() throws Exception {
        long end = System.nanoTime() + deadline.toNanos();
        Stage withSessions;
        ProcessSampler sampler = ProcessSampler.of(pid);
        List<HttpClientEngine> clients = new ArrayList<>();
        EventLoopGroup clientGroup = new MultiThreadIoEventLoopGroup(2,
                Epoll.isAvailable() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        try {
            for (int c = 0; c < Math.max(1, (sessionCount + CLIENT_PLACES - 1) / CLIENT_PLACES); c++) {
                clients.add(HttpClientEngine.builder(url).eventLoopGroup(clientGroup).localAddress(Loopback.clientAddress(c))
                        .maxConnections(2).responseTimeout(Duration.ofSeconds(30)).build());
            }
            if (warm) {
                // the same traffic first, its sessions deleted: what stays after it is what the sessions hold
                openSessions(clients, end);
                deleteSessions(clients.get(0), end);
                report("warmed", settledSample(sampler, "warmed"), 0, 0, 0);
            }
            Stage before = settledSample(sampler, "before");
            report("before", before, 0, 0, 0);
            openSessions(clients, end);
            withSessions = settledSample(sampler, "sessions");
            report("sessions", withSessions, sessionIds.size(), 0, 0);
            perItem("per session", before, withSessions, sessionIds.size());
        } finally {
            clients.forEach(HttpClientEngine::close);
            clientGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        }
        if (streamCount > 0 || listenCount > 0) {
            int streamConnections = (streamCount + STREAMS_PER_CONNECTION - 1) / STREAMS_PER_CONNECTION;
            int listenConnections = (listenCount + STREAMS_PER_CONNECTION - 1) / STREAMS_PER_CONNECTION;
            EventLoopGroup group = new MultiThreadIoEventLoopGroup(2,
                    Epoll.isAvailable() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
            // an engine per connection: one engine opens its next HTTP/2 connection only as streams finish
            List<HttpClientEngine> engines = new ArrayList<>();
            try {
                for (int i = 0; i < streamConnections + listenConnections; i++) {
                    engines.add(HttpClientEngine.builder(url).protocol(HttpProtocol.H2C).eventLoopGroup(group)
                            .localAddress(Loopback.clientAddress(i)).maxConnections(1).maxConcurrentStreams(STREAMS_PER_CONNECTION)
                            .responseTimeout(Duration.ZERO).build());
                }
                Stage last = withSessions;
                int open = 0;
                if (streamCount > 0) {
                    open = hold(getStreams(), engines.subList(0, streamConnections), end, "GET stream");
                    Stage withStreams = settledSample(sampler, "streams");
                    report("streams", withStreams, sessionIds.size(), open, 0);
                    perItem("per stream", last, withStreams, open);
                    last = withStreams;
                }
                int listening = 0;
                if (listenCount > 0) {
                    listening = hold(listens(), engines.subList(streamConnections, engines.size()), end, "listen");
                    Stage withListens = settledSample(sampler, "listens");
                    report("listens", withListens, sessionIds.size(), open, listening);
                    perItem("per listen", last, withListens, listening);
                }
                sleepUntil(Math.min(end, System.nanoTime() + hold.toNanos()));
                report("held " + hold.toSeconds() + "s", settledSample(sampler, "held"), sessionIds.size(), open,
                        listening);
            } finally {
                engines.forEach(HttpClientEngine::close);
                group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
            }
        } else {
            sleepUntil(Math.min(end, System.nanoTime() + hold.toNanos()));
        }
        System.out.printf("errors: %d%s%n", errors.get(), firstError.get() == null ? "" : " (first: " + firstError.get() + ")");
        return errors.get();
    }

    /** Opens the sessions, each client in turn, so that none holds more than {@link #CLIENT_PLACES}. */
    private void openSessions(List<HttpClientEngine> clients, long end) throws InterruptedException {
        Semaphore room = new Semaphore(SESSION_CONCURRENCY);
        CountDownLatch done = new CountDownLatch(sessionCount);
        for (int i = 0; i < sessionCount && System.nanoTime() < end; i++) {
            if (!room.tryAcquire(Math.max(1, end - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                break;
            }
            HttpClientEngine http = clients.get(i % clients.size());
            post(http, INITIALIZE, null).thenCompose(init -> {
                String session = init.header("mcp-session-id");
                if (init.status() != 200 || session == null) {
                    throw new IllegalStateException("initialize: HTTP " + init.status() + " " + abbreviate(init.bodyText()));
                }
                return post(http, INITIALIZED, session).thenApply(ack -> {
                    if (ack.status() != 202) {
                        throw new IllegalStateException("notifications/initialized: HTTP " + ack.status());
                    }
                    return session;
                });
            }).whenComplete((session, failure) -> {
                if (failure != null) {
                    error(failure);
                } else {
                    synchronized (sessionIds) {
                        sessionIds.add(session);
                    }
                }
                room.release();
                done.countDown();
            });
        }
        if (!done.await(Math.max(1, end - System.nanoTime()), TimeUnit.NANOSECONDS)) {
            error(new IllegalStateException("sessions still opening at the deadline"));
        }
    }

    private void deleteSessions(HttpClientEngine http, long end) throws InterruptedException {
        List<String> ids;
        synchronized (sessionIds) {
            ids = List.copyOf(sessionIds);
            sessionIds.clear();
        }
        Semaphore room = new Semaphore(SESSION_CONCURRENCY);
        CountDownLatch done = new CountDownLatch(ids.size());
        for (String session : ids) {
            if (!room.tryAcquire(Math.max(1, end - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                break;
            }
            http.send(HttpCall.delete(null).header("mcp-session-id", session).header("mcp-protocol-version", VERSION))
                    .whenComplete((reply, failure) -> {
                        if (failure != null || reply.status() >= 300) {
                            error(failure != null ? failure : new IllegalStateException("DELETE: HTTP " + reply.status()));
                        }
                        room.release();
                        done.countDown();
                    });
        }
        if (!done.await(Math.max(1, end - System.nanoTime()), TimeUnit.NANOSECONDS)) {
            error(new IllegalStateException("sessions still being deleted at the deadline"));
        }
    }

    private static CompletableFuture<HttpReply> post(HttpClientEngine http, String body, String session) {
        HttpCall call = HttpCall.post(null, "application/json", body.getBytes(StandardCharsets.UTF_8))
                .header("accept", "application/json, text/event-stream");
        if (session != null) {
            call.header("mcp-session-id", session).header("mcp-protocol-version", VERSION);
        }
        return http.send(call);
    }

    /** The standalone GET streams of the first {@code --streams} sessions. */
    private List<HttpCall> getStreams() {
        List<String> ids;
        synchronized (sessionIds) {
            ids = List.copyOf(sessionIds.subList(0, Math.min(streamCount, sessionIds.size())));
        }
        return ids.stream().map(session -> HttpCall.get(null).header("accept", "text/event-stream")
                .header("mcp-session-id", session).header("mcp-protocol-version", VERSION)).toList();
    }

    /** {@code --listens} 2026-07-28 {@code subscriptions/listen} requests, each with an id of its own. */
    private List<HttpCall> listens() {
        List<HttpCall> calls = new ArrayList<>(listenCount);
        for (int i = 0; i < listenCount; i++) {
            calls.add(HttpCall.post(null, "application/json", LISTEN.formatted(i).getBytes(StandardCharsets.UTF_8))
                    .header("accept", "application/json, text/event-stream").header("mcp-protocol-version", MODERN)
                    .header("mcp-method", "subscriptions/listen"));
        }
        return calls;
    }

    /**
     * Sends each call, {@link #STREAMS_PER_CONNECTION} to an engine, and returns how many streams delivered their first
     * event (the GET stream's priming event, the listen's acknowledgement) before the deadline; they stay open.
     */
    private int hold(List<HttpCall> calls, List<HttpClientEngine> engines, long end, String what)
            throws InterruptedException {
        CountDownLatch first = new CountDownLatch(calls.size());
        AtomicInteger open = new AtomicInteger();
        for (int i = 0; i < calls.size(); i++) {
            HttpClientEngine h2c = engines.get(i / STREAMS_PER_CONNECTION);
            AtomicInteger seen = new AtomicInteger();
            HttpCall call = calls.get(i).onEvent(event -> {
                if (seen.getAndIncrement() == 0) {
                    open.incrementAndGet();
                    first.countDown();
                }
            });
            h2c.send(call).whenComplete((reply, failure) -> {
                if (seen.get() == 0) {
                    error(failure != null ? failure : new IllegalStateException(what + ": HTTP " + reply.status()
                            + " " + abbreviate(reply.bodyText())));
                    first.countDown();
                }
            });
        }
        if (!first.await(Math.max(1, end - System.nanoTime()), TimeUnit.NANOSECONDS)) {
            error(new IllegalStateException((calls.size() - open.get()) + " " + what + "s not open at the deadline"));
        }
        return open.get();
    }

    private void error(Throwable failure) {
        errors.incrementAndGet();
        Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        firstError.compareAndSet(null, cause.toString());
    }

    /**
     * RSS and live heap after a full GC in the server (the heap histogram collects first), so garbage left by
     * opening does not count. Without jcmd at hand, only the RSS.
     */
    private Stage settledSample(ProcessSampler sampler, String stage) throws IOException, InterruptedException {
        ProcessSampler.Sample raw = sampler.sample();
        String text = jcmd("GC.class_histogram");
        if (histogram != null) {
            Files.writeString(histogram.resolve(stage + ".histogram.txt"), text);
        }
        long liveHeap = Jcmd.histogramTotal(text);
        return new Stage(raw == null ? -1 : raw.rssBytes(), sampler.sample().rssBytes(), liveHeap);
    }

    /** RSS when sampled, RSS after the full GC, and the live heap the histogram counted (-1: unknown). */
    private record Stage(long rssBefore, long rss, long liveHeap) {
    }

    private String jcmd(String command) throws IOException, InterruptedException {
        return Jcmd.run(pid, command);
    }

    private static void report(String stage, Stage s, int sessions, int streams, int listens) {
        System.out.printf("%-10s sessions %6d  streams %6d  listens %6d  RSS %8.1f MiB (%8.1f before GC)  live heap"
                + " %8.1f MiB%n", stage, sessions, streams, listens, s.rss() / 1048576.0, s.rssBefore() / 1048576.0,
                s.liveHeap() / 1048576.0);
    }

    private static void perItem(String what, Stage from, Stage to, int count) {
        if (count > 0) {
            System.out.printf("%-10s RSS %+.1f MiB, live heap %+.1f MiB for %d: %,d and %,d bytes each%n", what,
                    (to.rss() - from.rss()) / 1048576.0, (to.liveHeap() - from.liveHeap()) / 1048576.0, count,
                    (to.rss() - from.rss()) / count, (to.liveHeap() - from.liveHeap()) / count);
        }
    }

    private static void sleepUntil(long nanos) throws InterruptedException {
        long left = nanos - System.nanoTime();
        if (left > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    private static String abbreviate(String s) {
        return s == null ? "" : s.length() > 160 ? s.substring(0, 160) + "…" : s;
    }
}
