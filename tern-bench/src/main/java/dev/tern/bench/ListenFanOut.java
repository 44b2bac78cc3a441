package dev.tern.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.tern.client.http.HttpCall;
import dev.tern.client.http.HttpClientEngine;
import dev.tern.client.http.HttpProtocol;
import dev.tern.client.http.HttpReply;
import dev.tern.protocol.McpMeta;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;

/**
 * How many 2026-07-28 {@code subscriptions/listen} streams one server holds, at what memory, and how fast a list change
 * reaches them all: opens {@code count} listens for tool-list changes over h2c, many streams per connection, the
 * connections coming from loopback addresses 127.0.0.2 and up (at most {@code perAddress} listens from each, within
 * the share a server gives one client); once every listen is acknowledged, samples the server's RSS and live heap
 * (after a full GC, through {@code jcmd}) and this process's; then calls a tool that changes the tool list and times,
 * from the call's send, the arrival of {@code notifications/tools/list_changed} on every listen, and the CPU time the
 * server and this process took meanwhile (on a shared machine the times follow the load, the CPU much less). Bounded
 * in count and time; only a server on 127.0.0.1.
 */
public final class ListenFanOut {
    /** The most listens one run opens. */
    public static final int MAX_COUNT = 200_000;
    private static final String MODERN = "2026-07-28";
    private static final String LIST_CHANGED = "notifications/tools/list_changed";
    private static final String META = ",\"" + McpMeta.KEY + "\":{\"" + McpMeta.PROTOCOL_VERSION + "\":\"" + MODERN
            + "\",\"" + McpMeta.CLIENT_CAPABILITIES + "\":{},\"" + McpMeta.CLIENT_INFO
            + "\":{\"name\":\"tern-bench\",\"version\":\"1\"}}";
    private static final ObjectMapper JSON = JsonMapper.builder().build();
    /** Listens sent but not yet acknowledged at once: the server sets each up before the next wave. */
    private static final int OPENING = 1_000;

    private final Builder b;
    private final AtomicInteger errors = new AtomicInteger();
    private final AtomicReference<String> firstError = new AtomicReference<>();
    private final AtomicBoolean closing = new AtomicBoolean();

    private ListenFanOut(Builder b) {
        this.b = b;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Memory of a process at one moment: RSS, and the live heap a full GC left (-1 when not known). */
    public record Memory(long rssBytes, long liveHeapBytes) {
    }

    /**
     * What a run measured. Times are from the send of the call that changed the list to a listen's notification, in
     * milliseconds; {@code firstMs} includes the server's list-change debounce. {@code serverCpuMs} and
     * {@code clientCpuMs}: CPU time from that send to the last notification (NaN when not known).
     */
    public record Result(String url, int requested, int acknowledged, int notified, int connections, int addresses,
            int streamsPerConnection, double openSeconds, Memory serverBefore, Memory serverWithListens,
            Memory clientWithListens, double callMs, double firstMs, double p50Ms, double p99Ms, double maxMs,
            double serverCpuMs, double clientCpuMs, int errors, String firstError) {

        /** Server RSS per open listen, in bytes. */
        public long rssPerListen() {
            return acknowledged == 0 ? 0 : (serverWithListens.rssBytes() - serverBefore.rssBytes()) / acknowledged;
        }

        /** Server live heap per open listen, in bytes (-1 when not known). */
        public long heapPerListen() {
            return acknowledged == 0 || serverWithListens.liveHeapBytes() < 0 || serverBefore.liveHeapBytes() < 0 ? -1
                    : (serverWithListens.liveHeapBytes() - serverBefore.liveHeapBytes()) / acknowledged;
        }

        /** A Markdown table of the figures. */
        public String markdown() {
            StringBuilder s = new StringBuilder();
            s.append("| listens | connections (streams each) | addresses | opened in | server RSS | server live heap "
                    + "| per listen (RSS / heap) | client RSS | notified | fan-out first / p50 / p99 / last "
                    + "| fan-out CPU server / client | errors |\n");
            s.append("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
            s.append(String.format(Locale.ROOT, "| %,d of %,d | %,d (%d) | %d | %.1f s | %s (%s before) | %s (%s before) "
                    + "| %,d B / %s | %s | %,d | %.0f / %.0f / %.0f / %.0f ms | %.0f / %.0f ms | %d |%n", acknowledged, requested,
                    connections, streamsPerConnection, addresses, openSeconds, mib(serverWithListens.rssBytes()),
                    mib(serverBefore.rssBytes()), mib(serverWithListens.liveHeapBytes()),
                    mib(serverBefore.liveHeapBytes()), rssPerListen(),
                    heapPerListen() < 0 ? "?" : String.format(Locale.ROOT, "%,d B", heapPerListen()),
                    mib(clientWithListens.rssBytes()), notified, firstMs, p50Ms, p99Ms, maxMs, serverCpuMs, clientCpuMs,
                    errors));
            if (firstError != null) {
                s.append("\nfirst error: ").append(firstError).append('\n');
            }
            s.append(String.format(Locale.ROOT, "%nThe call that changed the list was answered in %.1f ms; the times "
                    + "are from its send to each listen's notification (the server gathers changes for a moment "
                    + "before it notifies).%n", callMs));
            return s.toString();
        }

        private static String mib(long bytes) {
            return bytes < 0 ? "?" : String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
        }
    }

    /**
     * Serves the server if asked to, opens the listens, samples, changes the list, waits for every notification (or
     * the deadline) and closes all.
     */
    public Result run() throws IOException, InterruptedException, BenchFailure {
        if (b.mainClass == null) {
            return run(b.url, b.pid);
        }
        try (ServerProcess served = ServerProcess.spawnJava(b.mainClass, b.serverArgs, null, null, b.jvmOptions)) {
            URI at = served.awaitUrl(Duration.ofSeconds(60));
            log("serving at %s (pid %d, JVM options %s)", at, served.pid(), b.jvmOptions);
            return run(at, served.pid());
        }
    }

    private Result run(URI url, long pid) throws IOException, InterruptedException, BenchFailure {
        long end = System.nanoTime() + b.deadline.toNanos();
        ProcessSampler server = pid > 0 ? ProcessSampler.of(pid) : null;
        Memory before = settled(server);
        int perConnection = b.streamsPerConnection;
        int connectionsPerAddress = (b.perAddress + perConnection - 1) / perConnection;
        long[] notifiedAt = new long[b.count];
        AtomicInteger acknowledged = new AtomicInteger();
        AtomicInteger notified = new AtomicInteger();
        CountDownLatch allAcknowledged = new CountDownLatch(b.count);
        CountDownLatch allNotified = new CountDownLatch(b.count);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(b.ioThreads,
                Epoll.isAvailable() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        // An engine per connection: one engine opens its next HTTP/2 connection only as streams finish.
        List<HttpClientEngine> engines = new ArrayList<>();
        HttpClientEngine caller = null;
        try {
            log("opening %,d listens, %d per connection, at most %,d per address", b.count, perConnection, b.perAddress);
            Semaphore opening = new Semaphore(OPENING);
            long openStart = System.nanoTime();
            HttpClientEngine engine = null;
            for (int i = 0; i < b.count && System.nanoTime() < end; i++) {
                int inAddress = i % b.perAddress;
                if (inAddress % perConnection == 0) {
                    int address = i / b.perAddress;
                    engine = HttpClientEngine.builder(url).protocol(HttpProtocol.H2C).eventLoopGroup(group)
                            .localAddress(Loopback.clientAddress(address)).maxConnections(1)
                            .maxConcurrentStreams(perConnection).responseTimeout(Duration.ZERO).build();
                    engines.add(engine);
                }
                if (!opening.tryAcquire(Math.max(1, end - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    break;
                }
                int index = i;
                AtomicBoolean acked = new AtomicBoolean();
                HttpCall listen = HttpCall.post(null, "application/json", listenBody(i))
                        .header("accept", "application/json, text/event-stream").header("mcp-protocol-version", MODERN)
                        .header("mcp-method", "subscriptions/listen")
                        .onEvent(event -> {
                            if (!acked.getAndSet(true)) {
                                acknowledged.incrementAndGet();
                                opening.release();
                                allAcknowledged.countDown();
                            } else if (event.data() != null && event.data().contains(LIST_CHANGED)
                                    && notifiedAt[index] == 0) {
                                notifiedAt[index] = System.nanoTime();
                                notified.incrementAndGet();
                                allNotified.countDown();
                            }
                        });
                engine.send(listen).whenComplete((reply, failure) -> {
                    if (!acked.getAndSet(true)) {
                        opening.release();
                        allAcknowledged.countDown();
                        allNotified.countDown(); // it will not be notified: no waiting for it
                        error(failure != null ? failure : new IllegalStateException("listen: HTTP " + reply.status()
                                + " " + abbreviate(reply.bodyText())));
                    } else if (!closing.get()) {
                        error(failure != null ? failure : new IllegalStateException("a listen ended early: "
                                + abbreviate(reply.bodyText())));
                    }
                });
                if ((i + 1) % 10_000 == 0) {
                    log("%,d sent, %,d acknowledged", i + 1, acknowledged.get());
                }
            }
            if (!allAcknowledged.await(Math.max(1, end - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                error(new IllegalStateException((b.count - acknowledged.get()) + " listens not acknowledged at the "
                        + "deadline"));
            }
            double openSeconds = (System.nanoTime() - openStart) / 1e9;
            log("%,d listens acknowledged in %.1f s; sampling", acknowledged.get(), openSeconds);
            Memory withListens = settled(server);
            Memory client = clientMemory();

            caller = HttpClientEngine.builder(url).eventLoopGroup(group).responseTimeout(Duration.ofSeconds(30))
                    .build();
            log("calling %s", b.tool);
            long self = ProcessHandle.current().pid();
            ProcessSampler.Sample serverCpu = server == null ? null : server.sample();
            ProcessSampler.Sample clientCpu = ProcessSampler.sample(self);
            long sent = System.nanoTime();
            HttpReply answer;
            try {
                answer = caller.send(HttpCall.post(null, "application/json", callBody())
                        .header("accept", "application/json, text/event-stream").header("mcp-protocol-version", MODERN)
                        .header("mcp-method", "tools/call").header("mcp-name", b.tool)).get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                throw new BenchFailure("the call to " + b.tool + " failed: " + e, e);
            }
            double callMs = (System.nanoTime() - sent) / 1e6;
            if (answer.status() != 200 || answer.bodyText().contains("\"isError\":true")
                    || answer.bodyText().contains("\"error\"")) {
                throw new BenchFailure("the call to " + b.tool + " did not change the list: HTTP " + answer.status()
                        + " " + abbreviate(answer.bodyText()), null);
            }
            long wait = Math.max(1, Math.min(end - System.nanoTime(), b.fanOutTimeout.toNanos()));
            if (!allNotified.await(wait, TimeUnit.NANOSECONDS)) {
                log("%,d of %,d listens notified by the deadline", notified.get(), acknowledged.get());
            }
            double serverCpuMs = cpuMs(serverCpu, server == null ? null : server.sample());
            double clientCpuMs = cpuMs(clientCpu, ProcessSampler.sample(self));
            long[] times = Arrays.stream(notifiedAt).filter(t -> t != 0).map(t -> t - sent).sorted().toArray();
            log("%,d notified", times.length);
            return new Result(url.toString(), b.count, acknowledged.get(), times.length, engines.size(),
                    (engines.size() + connectionsPerAddress - 1) / connectionsPerAddress, perConnection, openSeconds,
                    before, withListens, client, callMs, ms(times, 0), ms(times, 0.50), ms(times, 0.99), ms(times, 1),
                    serverCpuMs, clientCpuMs, errors.get(), firstError.get());
        } finally {
            closing.set(true);
            // All at once: one after another, each connection's close waits for its streams to end.
            try (var closer = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
                engines.forEach(e -> closer.execute(e::close));
            }
            if (caller != null) {
                caller.close();
            }
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
        }
    }

    private static double cpuMs(ProcessSampler.Sample from, ProcessSampler.Sample to) {
        return from == null || to == null ? Double.NaN : (to.cpuNanos() - from.cpuNanos()) / 1e6;
    }

    private static double ms(long[] sorted, double quantile) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int i = (int) Math.min(sorted.length - 1, Math.max(0, Math.ceil(quantile * sorted.length) - 1));
        return sorted[i] / 1e6;
    }

    private static byte[] listenBody(int id) {
        return ("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"subscriptions/listen\",\"params\":{"
                + "\"notifications\":{\"toolsListChanged\":true}" + META + "}}").getBytes(StandardCharsets.UTF_8);
    }

    private byte[] callBody() {
        return ("{\"jsonrpc\":\"2.0\",\"id\":\"change\",\"method\":\"tools/call\",\"params\":{\"name\":"
                + JSON.writeValueAsString(b.tool) + ",\"arguments\":" + b.arguments + META + "}}").getBytes(StandardCharsets.UTF_8);
    }

    /** The server's RSS and live heap after a full GC (the heap histogram collects first); unknown without a pid. */
    private Memory settled(ProcessSampler sampler) throws IOException, InterruptedException {
        if (sampler == null) {
            return new Memory(-1, -1);
        }
        long heap = Jcmd.histogramTotal(Jcmd.run(sampler.pid(), "GC.class_histogram"));
        ProcessSampler.Sample s = sampler.sample();
        return new Memory(s == null ? -1 : s.rssBytes(), heap);
    }

    private static Memory clientMemory() {
        System.gc();
        Runtime r = Runtime.getRuntime();
        ProcessSampler.Sample s = ProcessSampler.sample(ProcessHandle.current().pid());
        return new Memory(s == null ? -1 : s.rssBytes(), r.totalMemory() - r.freeMemory());
    }

    private void error(Throwable failure) {
        errors.incrementAndGet();
        Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        firstError.compareAndSet(null, cause.toString());
    }

    private void log(String format, Object... args) {
        if (b.log != null) {
            b.log.println("tern bench listens: " + String.format(Locale.ROOT, format, args));
        }
    }

    private static String abbreviate(String s) {
        return s == null ? "" : s.length() > 160 ? s.substring(0, 160) + "…" : s;
    }

    /** What to open and where; {@link #build} checks it. */
    public static final class Builder {
        private URI url;
        private String mainClass;
        private List<String> serverArgs = List.of();
        private List<String> jvmOptions = List.of();
        private int count = 10_000;
        private int streamsPerConnection = 200;
        private int perAddress = 1_000;
        private String tool = "test_trigger_tool_change";
        private String arguments = "{}";
        private long pid;
        private Duration deadline = Duration.ofMinutes(5);
        private Duration fanOutTimeout = Duration.ofSeconds(60);
        private int ioThreads = 2;
        private PrintStream log;

        private Builder() {
        }

        /** A running server on 127.0.0.1, and its process to sample for RSS and (by jcmd) live heap (0: none). */
        public Builder url(URI url, long pid) {
            this.url = Objects.requireNonNull(url, "url");
            this.pid = pid;
            return this;
        }

        /**
         * Or a server to spawn for the run, on this JVM's class path: {@code mainClass} with {@code args} (it must say
         * {@code ... at URL} on its standard error once serving), with {@code jvmOptions} after this JVM's own.
         */
        public Builder serve(String mainClass, List<String> args, List<String> jvmOptions) {
            this.mainClass = Objects.requireNonNull(mainClass, "mainClass");
            this.serverArgs = List.copyOf(args);
            this.jvmOptions = List.copyOf(jvmOptions);
            return this;
        }

        /** Listens to open (default 10,000; at most {@value ListenFanOut#MAX_COUNT}). */
        public Builder count(int count) {
            this.count = count;
            return this;
        }

        /** HTTP/2 streams per connection (default 200; a Tern server allows 256 by default). */
        public Builder streamsPerConnection(int streams) {
            this.streamsPerConnection = streams;
            return this;
        }

        /** Listens from one source address at most (default 1,000, a Tern server's default share of one client). */
        public Builder perAddress(int listens) {
            this.perAddress = listens;
            return this;
        }

        /** The tool whose call changes the tool list, and its arguments as a JSON object. */
        public Builder trigger(String tool, String argumentsJson) {
            this.tool = Objects.requireNonNull(tool, "tool");
            this.arguments = Objects.requireNonNull(argumentsJson, "argumentsJson").strip();
            return this;
        }

        /** The whole run's bound (default 5 minutes), and the wait for the notifications within it (60 s). */
        public Builder deadline(Duration deadline, Duration fanOutTimeout) {
            this.deadline = Objects.requireNonNull(deadline, "deadline");
            this.fanOutTimeout = Objects.requireNonNull(fanOutTimeout, "fanOutTimeout");
            return this;
        }

        /** The client's I/O threads (default 2). */
        public Builder ioThreads(int threads) {
            this.ioThreads = threads;
            return this;
        }

        /** Where progress lines go (none by default). */
        public Builder log(PrintStream log) {
            this.log = log;
            return this;
        }

        public ListenFanOut build() {
            if ((url == null) == (mainClass == null)) {
                throw new IllegalArgumentException("give a server's URL or a server to serve, one of them");
            }
            if (url != null && (!"127.0.0.1".equals(url.getHost()) || !"http".equals(url.getScheme()))) {
                throw new IllegalArgumentException("--url: " + url + " (expected: http://127.0.0.1:PORT/..., a local "
                        + "server over h2c)");
            }
            if (count < 1 || count > MAX_COUNT) {
                throw new IllegalArgumentException("--count: " + count + " (expected: 1 to " + MAX_COUNT + ")");
            }
            if (streamsPerConnection < 1 || perAddress < 1 || ioThreads < 1) {
                throw new IllegalArgumentException("--streams-per-connection, --per-address and --io-threads must be "
                        + "positive");
            }
            if ((count + perAddress - 1) / perAddress > 250 * 256) {
                throw new IllegalArgumentException("--per-address: " + perAddress + " needs more loopback addresses "
                        + "than 127.0.0.2-127.0.255.251");
            }
            boolean object;
            try {
                object = JSON.readTree(arguments).isObject();
            } catch (JacksonException e) {
                object = false;
            }
            if (!object) {
                throw new IllegalArgumentException("--args: " + arguments + " (expected: a JSON object)");
            }
            return new ListenFanOut(this);
        }
    }
}
