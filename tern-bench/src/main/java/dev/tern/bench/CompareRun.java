package dev.tern.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.tern.bench.targets.Era;
import dev.tern.bench.targets.HttpMcpTarget;
import dev.tern.bench.targets.HttpVersion;
import dev.tern.bench.targets.RestTarget;
import dev.tern.client.ClientTracer;

/**
 * MCP (both eras) against REST on one server that this spawns (a JVM running a user-directory server), one after
 * another at the same load, all fetching the same user: each target primed for the warm-up time first, so that none
 * is measured on code the JIT has not compiled yet, then each measured after its own warm-up.
 */
public final class CompareRun {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    /** The runs, and the label of the one the others are compared with (REST, or MCP modern without a REST route). */
    public record Compared(BenchResult result, String baseline) {
    }

    private final String mainClass;
    private final List<String> args;
    private final LoadSpec spec;
    private HttpVersion http = HttpVersion.HTTP_1_1;
    private String userId = "42";
    private String serverCpus;
    private Path serverJfr;
    private boolean quiet;
    private String label = "compare";
    private PrintStream log = System.err;
    private List<Map.Entry<String, String>> headers = List.of();
    private ClientTracer tracer;

    private CompareRun(String mainClass, List<String> args, LoadSpec spec) {
        this.mainClass = Objects.requireNonNull(mainClass, "mainClass");
        this.args = List.copyOf(args);
        this.spec = Objects.requireNonNull(spec, "spec");
    }

    /**
     * Compares on the server that {@code mainClass} with {@code args} serves (on this JVM's class path), which must
     * say on its standard error where: {@code ... at http://127.0.0.1:PORT/mcp}.
     */
    public static CompareRun of(String mainClass, List<String> args, LoadSpec spec) {
        return new CompareRun(mainClass, args, spec);
    }

    public CompareRun http(HttpVersion value) {
        if (value == HttpVersion.H2) {
            throw new IllegalArgumentException("HTTP version: h2 needs TLS; compare serves cleartext (1.1 or h2c)");
        }
        this.http = value;
        return this;
    }

    /** The user every target fetches. */
    /** Headers every request of every target carries, say {@code Authorization: Bearer ...}. */
    public CompareRun headers(List<Map.Entry<String, String>> value) {
        this.headers = List.copyOf(value);
        return this;
    }

    /**
     * A client span of each MCP call, its trace context in the call's {@code params._meta} so that the server's spans
     * join the trace (default none); REST calls carry none.
     */
    public CompareRun tracer(ClientTracer value) {
        this.tracer = Objects.requireNonNull(value, "tracer");
        return this;
    }

    public CompareRun userId(String value) {
        this.userId = Objects.requireNonNull(value, "userId");
        return this;
    }

    /** Runs the server on these CPUs only ({@code taskset -c}), so that the load generator can take the others. */
    public CompareRun serverCpus(String cpus) {
        if (cpus != null && !ServerProcess.isCpuList(cpus)) {
            throw new IllegalArgumentException("server CPUs: a CPU list such as 0 or 0,2-3, not '" + cpus + "'");
        }
        this.serverCpus = cpus;
        return this;
    }

    /** Records the server with JFR into this file, and reports its GC pauses over the runs. */
    public CompareRun serverJfr(Path file) {
        if (file != null && file.toAbsolutePath().toString().contains(",")) {
            throw new IllegalArgumentException("server recording: a path without commas (they separate JFR's "
                    + "options), not '" + file + "'");
        }
        this.serverJfr = file;
        return this;
    }

    public CompareRun quiet(boolean value) {
        this.quiet = value;
        return this;
    }

    public CompareRun label(String value) {
        this.label = value != null ? value : "compare";
        return this;
    }

    public CompareRun log(PrintStream value) {
        this.log = Objects.requireNonNull(value, "log");
        return this;
    }

    /** Starts the server, runs every target, stops the server. */
    public Compared run() throws IOException, InterruptedException, BenchFailure {
        Instant measuredFrom = null;
        Instant measuredTo = null;
        ServerProcess server = ServerProcess.spawnJava(mainClass, args, serverCpus, serverJfr);
        try {
            URI mcp = server.awaitUrl(START_TIMEOUT);
            log.println("tern bench compare: serving user-directory at " + mcp + " (pid " + server.pid() + ")");
            String arguments = "{\"id\":" + Reports.JSON.writeValueAsString(userId) + "}";
            Workload call = Workload.of(Operation.callTool("get_user", arguments));
            Map<String, LoadRunner> runners = new LinkedHashMap<>();
            HttpMcpTarget.Builder modern = HttpMcpTarget.builder(mcp).era(Era.MODERN).http(http).timeout(TIMEOUT);
            HttpMcpTarget.Builder legacy = HttpMcpTarget.builder(mcp).era(Era.LEGACY).http(http).timeout(TIMEOUT);
            for (Map.Entry<String, String> header : headers) {
                modern.header(header.getKey(), header.getValue());
                legacy.header(header.getKey(), header.getValue());
            }
            if (tracer != null) {
                modern.tracer(tracer);
                legacy.tracer(tracer);
            }
            runners.put("MCP modern", LoadRunner.of(modern.build(), call));
            runners.put("MCP legacy", LoadRunner.of(legacy.build(), call));
            URI users = mcp.resolve("/users/" + URLEncoder.encode(userId, StandardCharsets.UTF_8));
            String baseline = "REST";
            int status = status(users);
            if (status / 100 == 2) {
                runners.put("REST", LoadRunner.of(RestTarget.of(users, http, false, TIMEOUT, 64, headers),
                        Workload.of(Operation.rest(null))));
            } else {
                log.println("tern bench compare: GET " + users + " answered " + status
                        + ": this server has no REST route for users; comparing the MCP eras only");
                baseline = "MCP modern";
            }
            List<RunResult> runs = new ArrayList<>();
            try {
                for (LoadRunner runner : runners.values()) {
                    runner.sampling(server.pid()).open();
                }
                if (!spec.warmup().isZero()) {
                    // Every target's code paths are compiled before any is measured, not only the first's.
                    log.println("tern bench compare: priming each target for " + spec.warmup().toMillis() / 1000.0
                            + " s");
                    LoadSpec priming = (spec.open() ? LoadSpec.openLoop(spec.rate(), spec.warmup())
                            : LoadSpec.closedLoop(spec.connections(), spec.warmup())).withPacing(spec.pacing());
                    for (Map.Entry<String, LoadRunner> e : runners.entrySet()) {
                        e.getValue().progress(p -> { }).run("priming " + e.getKey(), priming);
                    }
                }
                measuredFrom = Instant.now();
                for (Map.Entry<String, LoadRunner> e : runners.entrySet()) {
                    runs.add(BenchRun.withProgress(e.getValue(), e.getKey(), spec, quiet, log));
                }
                measuredTo = Instant.now();
            } finally {
                runners.values().forEach(LoadRunner::close);
            }
            return new Compared(BenchResult.of(label, null, runs), baseline);
        } catch (InterruptedException | IOException e) {
            throw e;
        } catch (Exception e) {
            throw new BenchFailure(BenchRun.describe(e), e);
        } finally {
            server.close();
            if (serverJfr != null) {
                reportRecording(measuredFrom, measuredTo);
            }
        }
    }

    /** Where the server's recording is, and its GC pauses over the runs (each with its warm-up; no priming). */
    private void reportRecording(Instant from, Instant to) {
        if (!Files.isRegularFile(serverJfr)) {
            log.println("tern bench compare: the server left no recording at " + serverJfr);
            return;
        }
        log.println("tern bench compare: the server's JFR recording is " + serverJfr);
        if (from == null || to == null) {
            return;
        }
        try {
            log.println("tern bench compare: server " + GcPauses.read(serverJfr, from, to).describe() + " of the runs");
        } catch (IOException | RuntimeException e) {
            log.println("tern bench compare: cannot read " + serverJfr + ": " + e.getMessage());
        }
    }

    private int status(URI uri) throws IOException, InterruptedException {
        try (HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET();
            headers.forEach(header -> request.header(header.getKey(), header.getValue()));
            return client.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        }
    }
}
