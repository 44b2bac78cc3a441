package dev.tern.bench.targets;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.tern.bench.ConnectionObserver;
import dev.tern.bench.Operation;
import dev.tern.bench.Outcome;
import dev.tern.bench.Target;
import dev.tern.client.ClientTracer;

import tools.jackson.databind.JsonNode;

/**
 * An MCP server spawned as a child process and spoken to over its stdin/stdout (newline-delimited JSON). Requests
 * are pipelined: a writer sends every queued request and flushes once, a reader matches replies by id. The server's
 * stderr is discarded.
 */
public final class StdioMcpTarget implements Target {
    private final List<String> command;
    private final Era era;
    private static final Duration START_UP_TIMEOUT = Duration.ofSeconds(60);

    private final Duration timeout;
    private final AtomicLong ids = new AtomicLong(1);
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private final LinkedBlockingQueue<String> outbox = new LinkedBlockingQueue<>();
    /** Makes a client span of each call and puts its context in the call's {@code _meta}; null for none. */
    private volatile ClientTracer tracer;
    private volatile McpWire wire;
    private volatile CompletableFuture<JsonNode> initializeResponse = new CompletableFuture<>();
    private Process process;
    private volatile boolean closed;

    private record Pending(CompletableFuture<Outcome> future, long sentNanos) {
    }

    private StdioMcpTarget(List<String> command, Era era, Duration timeout) {
        this.command = List.copyOf(command);
        this.era = era;
        this.timeout = timeout;
    }

    public static StdioMcpTarget of(List<String> command, Era era, Duration timeout) {
        if (command.isEmpty()) {
            throw new IllegalArgumentException("command: empty (expected: a program and its arguments)");
        }
        return new StdioMcpTarget(command, era, timeout);
    }

    /**
     * A client span of each call (not of the set-up), its trace context in the call's {@code params._meta} so that the
     * server's span joins the trace; set before the target is opened.
     */
    public StdioMcpTarget tracer(ClientTracer value) {
        this.tracer = java.util.Objects.requireNonNull(value, "tracer");
        return this;
    }

    /** Splits a command line on spaces, keeping single- or double-quoted parts together. */
    public static List<String> split(String commandLine) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        char quote = 0;
        boolean any = false;
        for (char c : commandLine.toCharArray()) {
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    cur.append(c);
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                any = true;
            } else if (Character.isWhitespace(c)) {
                if (any || !cur.isEmpty()) {
                    out.add(cur.toString());
                    cur.setLength(0);
                    any = false;
                }
            } else {
                cur.append(c);
            }
        }
        if (any || !cur.isEmpty()) {
            out.add(cur.toString());
        }
        return out;
    }

    @Override
    public synchronized void open(ConnectionObserver observer) throws Exception {
        if (process == null) {
            process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            Thread.ofPlatform().daemon().name("tern-bench-stdio-writer").start(this::writeLoop);
            Thread.ofPlatform().daemon().name("tern-bench-stdio-reader").start(this::readLoop);
        }
        if (wire != null) {
            return;
        }
        if (era != Era.LEGACY) {
            McpWire modern = new McpWire(true);
            if (era == Era.MODERN) {
                wire = modern;
                return;
            }
            String[] t = modern.template("server/discover", McpWire.JSON.createObjectNode());
            if (exchange(t[0], t[1]).isOk()) {
                wire = modern;
                return;
            }
        }
        long id = ids.getAndIncrement();
        initializeResponse = new CompletableFuture<>();
        Outcome init = submit(id, McpWire.initialize().replace("\"id\":0", "\"id\":" + id))
                .get(setUpTimeout().toMillis(), TimeUnit.MILLISECONDS);
        if (!init.isOk()) {
            throw new IllegalStateException("initialize failed: " + init.status().key() + " " + init.detail());
        }
        outbox.add(McpWire.INITIALIZED);
        wire = McpWire.negotiated(initializeResponse.getNow(null));
    }

    /** Sends one request during set-up and waits for its reply. */
    private Outcome exchange(String before, String after) throws Exception {
        long id = ids.getAndIncrement();
        return submit(id, before + id + after).get(setUpTimeout().toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Set-up replies come from a process that may still be starting: they get a start-up's time, not a request's. */
    private Duration setUpTimeout() {
        return timeout.compareTo(START_UP_TIMEOUT) > 0 ? timeout : START_UP_TIMEOUT;
    }

    private CompletableFuture<Outcome> submit(long id, String line) {
        CompletableFuture<Outcome> f = new CompletableFuture<>();
        if (closed || process == null || !process.isAlive()) {
            f.complete(Outcome.failed(Outcome.Status.TRANSPORT, "server process not running"));
            return f;
        }
        pending.put(id, new Pending(f, System.nanoTime()));
        f.whenComplete((o, e) -> pending.remove(id));
        outbox.add(line);
        return f;
    }

    @Override
    public CompletableFuture<Outcome> call(Operation operation) {
        McpWire w = wire;
        if (w == null) {
            throw new IllegalStateException("target not open");
        }
        long id = ids.getAndIncrement();
        ClientTracer t = tracer;
        if (t != null) {
            return TracedRequests.send(t, false, operation, w.request(id, operation), body -> submit(id, body));
        }
        return submit(id, w.request(id, operation));
    }

    private void writeLoop() {
        List<String> batch = new ArrayList<>();
        try (OutputStream out = process.getOutputStream()) {
            while (!closed) {
                String first = outbox.poll(200, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                outbox.drainTo(batch, 1024);
                StringBuilder b = new StringBuilder();
                for (String line : batch) {
                    b.append(line).append('\n');
                }
                batch.clear();
                out.write(b.toString().getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
        } catch (IOException e) {
            failAll("cannot write to the server: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void readLoop() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8), 1 << 16)) {
            String line;
            while ((line = in.readLine()) != null) {
                long now = System.nanoTime();
                JsonNode message;
                try {
                    message = McpWire.JSON.readTree(line);
                } catch (RuntimeException e) {
                    continue;
                }
                JsonNode id = message.get("id");
                if (id == null || !id.isIntegralNumber() || message.has("method")) {
                    continue;
                }
                Pending p = pending.get(id.asLong());
                if (p != null && wire == null) {
                    initializeResponse.complete(message);
                }
                if (p != null) {
                    p.future().complete(McpWire.classify(message).withTimings(p.sentNanos(), now, null));
                }
            }
        } catch (IOException e) {
            // the process ended; pending requests fail below
        }
        failAll("the server closed its output");
    }

    private void failAll(String why) {
        for (Pending p : pending.values()) {
            p.future().complete(Outcome.failed(Outcome.Status.TRANSPORT, why));
        }
    }

    @Override
    public long pid() {
        Process p = process;
        return p == null ? -1 : p.pid();
    }

    @Override
    public String describe() {
        McpWire w = wire;
        return "MCP " + (w == null ? "" : w.version() + " ") + "stdio: " + String.join(" ", command);
    }

    @Override
    public void close() {
        closed = true;
        Process p = process;
        if (p != null) {
            try {
                p.getOutputStream().close();
            } catch (IOException e) {
                // already closed
            }
            try {
                if (!p.waitFor(3, TimeUnit.SECONDS)) {
                    p.destroy();
                    if (!p.waitFor(3, TimeUnit.SECONDS)) {
                        p.destroyForcibly();
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            }
        }
        failAll("target closed");
    }
}
