package dev.tern.cli;

import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import dev.tern.bench.BenchFailure;
import dev.tern.bench.BenchResult;
import dev.tern.bench.BenchRun;
import dev.tern.bench.BenchRun.Point;
import dev.tern.bench.CompareRun;
import dev.tern.bench.Comparison;
import dev.tern.bench.Durations;
import dev.tern.bench.ListenFanOut;
import dev.tern.bench.LoadSpec;
import dev.tern.bench.Operation;
import dev.tern.bench.Reports;
import dev.tern.bench.Target;
import dev.tern.bench.Workload;
import dev.tern.bench.targets.Era;
import dev.tern.bench.targets.HttpMcpTarget;
import dev.tern.bench.targets.HttpVersion;
import dev.tern.bench.targets.RestTarget;
import dev.tern.bench.targets.StdioMcpTarget;
import dev.tern.bench.targets.WebSocketMcpTarget;
import dev.tern.protocol.WireFormat;
import dev.tern.client.ClientTracer;
import dev.tern.client.McpClient;
import dev.tern.observability.Observability;
import picocli.CommandLine;

/** {@code tern bench}: load an MCP server (or a REST endpoint) and report latency, throughput and cost. */
@CommandLine.Command(name = "bench", mixinStandardHelpOptions = true,
        subcommands = {BenchCommand.Compare.class, BenchCommand.Listens.class, BenchCommand.Report.class},
        description = {"Load an MCP server over HTTP or stdio, or a REST endpoint, and report latency percentiles, "
            + "throughput, errors and server cost.",
            "Open loop (--rate) sends at a constant arrival rate and times each request from its intended send time "
                + "(coordinated omission corrected); closed loop (--connections) keeps N requests outstanding and "
                + "measures saturation throughput.",
            "Prints a Markdown table on stdout (progress on stderr); --json, --md and --html write files."},
        footer = {"", "Examples:",
            "  tern bench --url http://127.0.0.1:8080/mcp --rate 5000 --duration 30s",
            "  tern bench --url ws://127.0.0.1:8080/mcp/ws --connections 8 --duration 30s",
            "  tern bench --url http://127.0.0.1:8080/mcp --sweep --connections 1,8,32 --html sweep.html",
            "  tern bench --stdio \"./tern serve --stdio\" --cold --connections 4 --duration 10s",
            "  tern bench --rest http://127.0.0.1:8080/users/42 --rate 5000",
            "  tern bench compare --rate 5000 --duration 20s",
            "  tern bench listens --count 100000 --server-jvm-option=-Xmx512m",
            "  tern bench report --baseline tern tern.json sdk.json --html peers.html"})
final class BenchCommand implements Callable<Integer> {
    private final PrintStream out = System.out;
    private final PrintStream err = System.err;

    @CommandLine.Option(names = "--url", paramLabel = "URL", description = "An MCP endpoint over Streamable HTTP "
            + "(http://, https://) or WebSocket (ws://, wss://: as many connections as --connections, requests "
            + "pipelined on them).")
    URI url;

    @CommandLine.Option(names = "--rest", paramLabel = "URL",
            description = "A plain HTTP endpoint: GET, or POST with --body.")
    URI rest;

    @CommandLine.Option(names = "--stdio", paramLabel = "COMMAND",
            description = "An MCP server to spawn and speak to over stdin/stdout, e.g. \"./tern serve --stdio\".")
    String stdio;

    @CommandLine.Option(names = "--body", paramLabel = "JSON", description = "With --rest: POST this body.")
    String body;

    @CommandLine.Option(names = "--era", paramLabel = "ERA", defaultValue = "auto",
            description = "modern (2026-07-28, stateless), legacy (2025-11-25 session) or auto: modern when the "
                + "server answers server/discover, else legacy (default: ${DEFAULT-VALUE}).")
    String era;

    @CommandLine.Option(names = "--http", paramLabel = "VERSION",
            description = "1.1, h2c or h2 (default: 1.1 for http://, h2 for https://). With a WebSocket URL: h2 "
                    + "(wss://) or h2c (ws://) opens each WebSocket on an HTTP/2 stream (RFC 8441 extended CONNECT), "
                    + "1.1 (the default) by the HTTP/1.1 upgrade.")
    String http;

    @CommandLine.Option(names = "--encoding", paramLabel = "FORMAT", defaultValue = "json",
            description = "With --url: the calls' encoding, json, cbor or msgpack (HTTP: Content-Type and Accept; "
                    + "WebSocket: subprotocol mcp, mcp.cbor or mcp.msgpack; default: ${DEFAULT-VALUE}).")
    String encoding;

    @CommandLine.Option(names = "--header", paramLabel = "'NAME: VALUE'",
            description = "A header every HTTP request carries (repeatable), e.g. --header 'Authorization: Bearer "
                    + "TOKEN' against a server that needs a token.")
    List<String> headers = List.of();

    @CommandLine.Option(names = "--insecure", description = "Trust any TLS certificate (self-signed development ones).")
    boolean insecure;

    @CommandLine.Option(names = "--requests-per-connection", paramLabel = "N", defaultValue = "0",
            description = "With --url over HTTP/1.1: every Nth request asks the server to close its connection, so "
                    + "connections carry N requests on average and new ones (new TLS handshakes) are made all through "
                    + "the run (default: connections stay open).")
    int requestsPerConnection;

    @CommandLine.Option(names = "--rate", paramLabel = "N",
            description = "Open loop: requests per second (default when neither --rate nor --connections: 1000).")
    Double rate;

    @CommandLine.Option(names = "--connections", paramLabel = "N[,N...]",
            description = "Closed loop: concurrent requests (a list with --sweep); over HTTP/1.1 as many connections, "
                + "over HTTP/2 as many streams on one connection. Open loop uses up to 64.")
    String connections;

    @CommandLine.Option(names = "--rates", paramLabel = "N,N...", description = "With --sweep: open-loop rates.")
    String rates;

    @CommandLine.Option(names = "--sweep", description = "Run once per --connections value (closed loop) or --rates "
            + "value (open loop), or, given both, once per pair (open loop at each rate with at most that many "
            + "connections): the throughput/p99 surface.")
    boolean sweep;

    @CommandLine.Option(names = "--burst", paramLabel = "LOW:HIGH:SECONDS",
            description = "Open loop at LOW, then HIGH, then LOW requests/s, each for SECONDS.")
    String burst;

    @CommandLine.Option(names = "--duration", paramLabel = "TIME", defaultValue = "30s",
            description = "How long to measure (default: ${DEFAULT-VALUE}).")
    String duration;

    @CommandLine.Option(names = "--warmup", paramLabel = "TIME", defaultValue = "5s",
            description = "Load before measuring, excluded from the figures (default: ${DEFAULT-VALUE}).")
    String warmup;

    @CommandLine.Option(names = "--max-requests", paramLabel = "N", defaultValue = "0",
            description = "Stop after N measured requests (default: only --duration bounds the run).")
    long maxRequests;

    @CommandLine.Option(names = "--max-in-flight", paramLabel = "N", defaultValue = "500",
            description = "Open loop: requests outstanding at once; more count as overflow errors (default: "
                + "${DEFAULT-VALUE}).")
    int maxInFlight;

    @CommandLine.Option(names = "--pacing", paramLabel = "TIME", defaultValue = LoadSpec.DEFAULT_PACING_TEXT,
            description = "Open loop: requests due within TIME of one being sent go with it, so that the load "
                + "generator wakes less often; 0 sends each at its own time (default: ${DEFAULT-VALUE}).")
    String pacing;

    @CommandLine.Option(names = "--timeout", paramLabel = "TIME", defaultValue = "10s",
            description = "A request without a reply by then is a timeout error (default: ${DEFAULT-VALUE}).")
    String timeout;

    @CommandLine.Option(names = "--workload", paramLabel = "KIND", defaultValue = "call",
            description = "call (tools/call), list (tools/list), read (resources/read), mix, or zipf (--tool with "
                + "--zipf-field over ids 1..--zipf-ids, Zipf-distributed; reports the share served from the server's "
                + "cache) (default: ${DEFAULT-VALUE}).")
    String workload;

    @CommandLine.Option(names = "--zipf-ids", paramLabel = "N", defaultValue = "1000",
            description = "With --workload zipf: how many ids (default: ${DEFAULT-VALUE}).")
    int zipfIds;

    @CommandLine.Option(names = "--zipf-exponent", paramLabel = "S", defaultValue = "1.0",
            description = "With --workload zipf: the exponent; larger puts more calls on fewer ids (default: "
                + "${DEFAULT-VALUE}).")
    double zipfExponent;

    @CommandLine.Option(names = "--zipf-field", paramLabel = "NAME", defaultValue = "id",
            description = "With --workload zipf: the argument that carries the id (default: ${DEFAULT-VALUE}).")
    String zipfField;

    @CommandLine.Option(names = "--tool", paramLabel = "NAME", defaultValue = "get_user",
            description = "The tool to call (default: ${DEFAULT-VALUE}).")
    String tool;

    @CommandLine.Option(names = "--args", paramLabel = "JSON", defaultValue = "{\"id\":\"42\"}",
            description = "The tool's arguments (default: ${DEFAULT-VALUE}).")
    String args;

    @CommandLine.Option(names = "--uri", paramLabel = "URI", defaultValue = "user://42",
            description = "The resource to read (default: ${DEFAULT-VALUE}).")
    String uri;

    @CommandLine.Option(names = "--mix", paramLabel = "KIND:WEIGHT,...", defaultValue = "call:8,list:1,read:1",
            description = "With --workload mix: weights (default: ${DEFAULT-VALUE}).")
    String mix;

    @CommandLine.Option(names = "--pid", paramLabel = "PID", description = "Sample this local server process's CPU "
            + "time and memory (a spawned server is sampled without it).")
    Long pid;

    @CommandLine.Option(names = "--cold", paramLabel = "COMMAND", arity = "0..1", fallbackValue = "",
            description = "Measure a cold start: spawn COMMAND (with --url; with --stdio the --stdio command itself, "
                + "COMMAND may be left out) and time it to its first successful reply; then run warm.")
    String cold;

    @CommandLine.Option(names = "--traces", description = "With --url (HTTP or WebSocket) or --stdio: make an "
            + "OpenTelemetry CLIENT span of each request and put its trace context in the request's _meta, so that the "
            + "server's spans join the traces; exported as the OTEL_* variables say, under the service name "
            + TRACES_SERVICE_NAME + " unless OTEL_SERVICE_NAME gives one. The figures then include the spans' cost.")
    boolean traces;

    /** The service {@code --traces} names in the spans it exports. */
    static final String TRACES_SERVICE_NAME = "tern-bench";

    /** The client spans of {@code --traces}; null without it. */
    private ClientTracer tracer;

    @CommandLine.Mixin
    Output output = new Output();

    @Override
    public Integer call() throws Exception {
        int targets = (url != null ? 1 : 0) + (rest != null ? 1 : 0) + (stdio != null ? 1 : 0);
        if (targets != 1) {
            return usage("give exactly one of --url, --rest or --stdio");
        }
        if (cold != null && cold.isBlank() && stdio == null) {
            return usage("--cold needs the server's command (with --url)");
        }
        if (cold != null && rest != null) {
            return usage("--cold works with --url or --stdio");
        }
        if (traces && rest != null) {
            return usage("--traces works with --url or --stdio (MCP requests carry the context in _meta)");
        }
        List<Point> points;
        Workload load;
        Duration requestTimeout;
        try {
            requestTimeout = Durations.parse(timeout);
            if (!headers.isEmpty() && (stdio != null || url != null && McpClient.isWebSocket(url))) {
                throw new IllegalArgumentException("--header applies to HTTP targets (--url http[s]://..., --rest)");
            }
            parsedHeaders = parseHeaders(headers);
            if (requestsPerConnection < 0 || requestsPerConnection > 0 && (url == null || McpClient.isWebSocket(url)
                    || httpVersion() != HttpVersion.HTTP_1_1)) {
                throw new IllegalArgumentException("--requests-per-connection: " + requestsPerConnection
                        + " (expected: N > 0 with --url http[s]://... and --http 1.1)");
            }
            load = workload();
            points = plan(requestTimeout);
            era();
            httpVersion();
            wireFormat();
        } catch (IllegalArgumentException e) {
            return usage(e.getMessage());
        }

        Observability observability;
        try {
            observability = traces ? clientTraces() : null;
        } catch (RuntimeException e) {
            return usage("--traces: " + e.getMessage());
        }
        tracer = observability == null ? null : observability.client().tracer();
        BenchRun bench = stdio != null ? BenchRun.stdio(pool -> target(requestTimeout, pool), load, points)
                : BenchRun.http(pool -> target(requestTimeout, pool), load, points);
        try (observability) {
            BenchResult result = bench.cold(cold == null ? null : url != null ? cold : stdio).sampling(pid)
                    .quiet(output.quiet).label(output.label).log(err).run();
            output.write(result, out, null);
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        } catch (BenchFailure e) {
            err.println("tern bench: " + e.getMessage());
            return 1;
        }
    }

    /**
     * The command with its subcommands, {@code compare} taking option-like values, so that {@code
     * --server-arg=--traces} passes {@code --traces} on to the server although {@code compare} has a {@code --traces}.
     */
    static CommandLine commandLine() {
        CommandLine bench = new CommandLine(new BenchCommand());
        bench.getSubcommands().get("compare").setAllowOptionsAsOptionParameters(true);
        return bench;
    }

    private int usage(String message) {
        err.println("tern bench: " + message + " (see tern bench --help)");
        return 2;
    }

    /** The client spans of {@code --traces}, exported as the {@code OTEL_*} variables say. */
    static Observability clientTraces() {
        return Observability.builder().tracing(true).serviceName(TRACES_SERVICE_NAME).build();
    }

    private List<Point> plan(Duration requestTimeout) {
        Duration length = Durations.parse(duration);
        Duration warm = Durations.parse(warmup);
        List<Point> base = new ArrayList<>();
        List<String> counts = list(connections);
        List<String> rateList = list(rates);
        if (burst != null) {
            String[] p = burst.split(":");
            if (p.length != 3) {
                throw new IllegalArgumentException("--burst: \"" + burst + "\" (expected: LOW:HIGH:SECONDS)");
            }
            base.add(new Point("burst " + p[0] + "→" + p[1] + "/s", LoadSpec.burst(Double.parseDouble(p[0]),
                    Double.parseDouble(p[1]), Durations.parse(p[2])), poolSize(), false));
        } else if (sweep) {
            if (counts.isEmpty() && rateList.isEmpty()) {
                throw new IllegalArgumentException("--sweep needs --connections N,N,... and/or --rates N,N,...");
            }
            if (rateList.isEmpty()) {
                for (String c : counts) {
                    int n = Integer.parseInt(c);
                    base.add(new Point("c=" + c, LoadSpec.closedLoop(n, length), n, false));
                }
            } else if (counts.isEmpty()) {
                for (String r : rateList) {
                    base.add(new Point("rate=" + r, LoadSpec.openLoop(Double.parseDouble(r), length), poolSize(),
                            false));
                }
            } else {
                // The surface: every rate with every connection limit.
                for (String c : counts) {
                    for (String r : rateList) {
                        base.add(new Point("c=" + c + " rate=" + r, LoadSpec.openLoop(Double.parseDouble(r), length),
                                Integer.parseInt(c), true));
                    }
                }
            }
        } else if (connections != null && rate == null) {
            if (counts.size() != 1) {
                throw new IllegalArgumentException("several --connections need --sweep");
            }
            int n = Integer.parseInt(counts.get(0));
            base.add(new Point("c=" + n, LoadSpec.closedLoop(n, length), n, false));
        } else {
            if (connections != null) {
                throw new IllegalArgumentException("--rate (open loop) and --connections (closed loop) exclude each "
                        + "other; both only with --sweep");
            }
            double r = rate == null ? 1000 : rate;
            base.add(new Point("rate=" + (r == Math.rint(r) ? Long.toString((long) r) : Double.toString(r)),
                    LoadSpec.openLoop(r, length), poolSize(), false));
        }
        List<Point> out = new ArrayList<>();
        for (Point p : base) {
            out.add(new Point(p.name(), p.spec().withWarmup(warm).withMaxRequests(maxRequests)
                    .withMaxInFlight(maxInFlight).withRequestTimeout(requestTimeout).withPacing(Durations.parse(pacing)),
                    p.pool(), p.reportPool()));
        }
        return out;
    }

    private static List<String> list(String csv) {
        List<String> out = new ArrayList<>();
        if (csv != null) {
            for (String part : csv.split(",")) {
                if (!part.isBlank()) {
                    out.add(part.strip());
                }
            }
        }
        return out;
    }

    private Workload workload() {
        Operation call = Operation.callTool(tool, args);
        if (rest != null) {
            return Workload.of(Operation.rest(body));
        }
        return switch (workload.toLowerCase(Locale.ROOT)) {
            case "call" -> Workload.of(call);
            case "list" -> Workload.of(Operation.listTools());
            case "read" -> Workload.of(Operation.readResource(uri));
            case "zipf" -> Workload.zipf(tool, zipfField, zipfIds, zipfExponent);
            case "mix" -> {
                Map<Operation, Integer> weights = new LinkedHashMap<>();
                for (String part : list(mix)) {
                    String[] kv = part.split(":");
                    if (kv.length != 2) {
                        throw new IllegalArgumentException("--mix: \"" + part + "\" (expected: KIND:WEIGHT)");
                    }
                    Operation op = switch (kv[0].strip().toLowerCase(Locale.ROOT)) {
                        case "call" -> call;
                        case "list" -> Operation.listTools();
                        case "read" -> Operation.readResource(uri);
                        default -> throw new IllegalArgumentException("--mix: \"" + kv[0]
                                + "\" (expected: call, list or read)");
                    };
                    weights.merge(op, Integer.parseInt(kv[1].strip()), Integer::sum);
                }
                yield Workload.mix(weights);
            }
            default -> throw new IllegalArgumentException("--workload: \"" + workload
                    + "\" (expected: call, list, read, mix or zipf)");
        };
    }

    private Era era() {
        return switch (era.toLowerCase(Locale.ROOT)) {
            case "modern" -> Era.MODERN;
            case "legacy" -> Era.LEGACY;
            case "auto" -> Era.AUTO;
            default -> throw new IllegalArgumentException("--era: \"" + era + "\" (expected: modern, legacy or auto)");
        };
    }

    private WireFormat wireFormat() {
        WireFormat format = switch (encoding.toLowerCase(Locale.ROOT)) {
            case "json" -> WireFormat.JSON;
            case "cbor" -> WireFormat.CBOR;
            case "msgpack", "messagepack" -> WireFormat.MSGPACK;
            default -> throw new IllegalArgumentException("--encoding: \"" + encoding
                    + "\" (expected: json, cbor or msgpack)");
        };
        if (format.binary() && url == null) {
            throw new IllegalArgumentException("--encoding " + encoding + " needs --url (an MCP endpoint over HTTP or "
                    + "WebSocket)");
        }
        return format;
    }

    private HttpVersion httpVersion() {
        URI u = url != null ? url : rest;
        if (http != null && url != null && McpClient.isWebSocket(url)) {
            return webSocketHttp(url, HttpVersion.parse(http));
        }
        if (http != null) {
            return HttpVersion.parse(http);
        }
        return u != null && "https".equalsIgnoreCase(u.getScheme()) ? HttpVersion.H2 : HttpVersion.HTTP_1_1;
    }

    /**
     * For a WebSocket URL, {@code --http h2} (wss://) or {@code h2c} (ws://) opens each WebSocket on an HTTP/2 stream
     * (RFC 8441); 1.1, the default, upgrades an HTTP/1.1 connection.
     */
    static HttpVersion webSocketHttp(URI url, HttpVersion version) {
        boolean secure = "wss".equalsIgnoreCase(url.getScheme());
        if (version == HttpVersion.H2 && !secure || version == HttpVersion.H2C && secure) {
            throw new IllegalArgumentException("--http " + version.label() + " with " + url.getScheme() + "://"
                    + " (expected: h2 with wss://, h2c with ws://, or 1.1)");
        }
        return version;
    }

    private Target target(Duration requestTimeout, int pool) {
        if (stdio != null) {
            StdioMcpTarget target = StdioMcpTarget.of(StdioMcpTarget.split(stdio), era(), requestTimeout);
            return tracer == null ? target : target.tracer(tracer);
        }
        if (rest != null) {
            return RestTarget.of(rest, httpVersion(), insecure, requestTimeout, pool, parsedHeaders);
        }
        if (McpClient.isWebSocket(url)) {
            WebSocketMcpTarget target = WebSocketMcpTarget.of(url, era(), insecure, requestTimeout, pool, wireFormat(),
                    http != null && httpVersion() != HttpVersion.HTTP_1_1);
            return tracer == null ? target : target.tracer(tracer);
        }
        HttpMcpTarget.Builder b = HttpMcpTarget.builder(url).era(era()).http(httpVersion()).insecure(insecure)
                .timeout(requestTimeout).connections(pool).encoding(wireFormat())
                .requestsPerConnection(requestsPerConnection);
        parsedHeaders.forEach(header -> b.header(header.getKey(), header.getValue()));
        if (tracer != null) {
            b.tracer(tracer);
        }
        return b.build();
    }

    private List<Map.Entry<String, String>> parsedHeaders = List.of();

    /** {@code --header 'Name: value'} options as name and value pairs; a malformed one is refused. */
    static List<Map.Entry<String, String>> parseHeaders(List<String> specs) {
        List<Map.Entry<String, String>> parsed = new ArrayList<>();
        for (String spec : specs) {
            int colon = spec.indexOf(':');
            String name = colon < 0 ? "" : spec.substring(0, colon).strip();
            boolean token = !name.isEmpty() && name.chars()
                    .allMatch(c -> c > 0x20 && c < 0x7F && "()<>@,;:\\\"/[]?={}".indexOf(c) < 0);
            if (!token) {
                throw new IllegalArgumentException("--header: \"" + spec + "\" (expected: 'NAME: VALUE')");
            }
            parsed.add(Map.entry(name, spec.substring(colon + 1).strip()));
        }
        return parsed;
    }

    /** HTTP/1.1 connections (HTTP/2 streams) an open-loop run may use. */
    private static int poolSize() {
        return 64;
    }

    /** Where results go: stdout, and the files asked for. */
    static final class Output {
        @CommandLine.Option(names = "--json", paramLabel = "FILE", description = "Write the results as JSON.")
        Path json;

        @CommandLine.Option(names = "--md", paramLabel = "FILE", description = "Write the Markdown report.")
        Path md;

        @CommandLine.Option(names = "--html", paramLabel = "FILE",
                description = "Write a self-contained HTML report with charts.")
        Path html;

        @CommandLine.Option(names = "--label", paramLabel = "NAME",
                description = "Name these results (in merged reports: tern bench report).")
        String label;

        @CommandLine.Option(names = {"-q", "--quiet"}, description = "No progress line.")
        boolean quiet;

        void write(BenchResult result, PrintStream out, Comparison comparison) throws java.io.IOException {
            String markdown = comparison == null ? Reports.markdown(result)
                    : comparison.markdown() + "\n" + Reports.markdown(result);
            out.print(markdown);
            out.flush();
            if (json != null) {
                Reports.write(json, Reports.json(result));
            }
            if (md != null) {
                Reports.write(md, markdown);
            }
            if (html != null) {
                Reports.write(html, comparison == null ? Reports.html(result) : comparison.html());
            }
        }
    }

    /** {@code tern bench compare}: MCP (both eras) against REST on the same Tern server, at one rate. */
    @CommandLine.Command(name = "compare", mixinStandardHelpOptions = true,
            description = {"Start Tern's user-directory example in a child process and load, at the same open-loop "
                + "rate (or closed loop with --connections) and one after another: MCP 2026-07-28 (stateless), MCP 2025-11-25 (session) and REST "
                + "GET /users/{id}, all fetching the same user; print p50, p99, throughput and the server's CPU per "
                + "call, with ratios against REST.",
                "Each target is first primed for the warm-up time, so that none is measured on code the JIT has "
                    + "not compiled yet; then each is measured after its own warm-up."})
    static final class Compare implements Callable<Integer> {
        @CommandLine.Option(names = "--rate", paramLabel = "N", defaultValue = "5000",
                description = "Requests per second (default: ${DEFAULT-VALUE}).")
        double rate;

        @CommandLine.Option(names = "--connections", paramLabel = "N", description = "Closed loop instead: N "
                + "connections, each sending as fast as it is answered (saturation throughput and CPU per call).")
        Integer connections;

        @CommandLine.Option(names = "--duration", paramLabel = "TIME", defaultValue = "20s",
                description = "Measured time per target (default: ${DEFAULT-VALUE}).")
        String duration;

        @CommandLine.Option(names = "--warmup", paramLabel = "TIME", defaultValue = "5s",
                description = "Warm-up per target, excluded (default: ${DEFAULT-VALUE}).")
        String warmup;

        @CommandLine.Option(names = "--http", paramLabel = "VERSION", defaultValue = "1.1",
                description = "1.1 or h2c (default: ${DEFAULT-VALUE}).")
        String http;

        @CommandLine.Option(names = "--id", paramLabel = "ID", defaultValue = "42",
                description = "The user to fetch (default: ${DEFAULT-VALUE}).")
        String id;

        @CommandLine.Option(names = "--server-timing", description = "Serve with --server-timing, so the MCP rows "
                + "also split the server's time into parse, queue, exec and ser (the header costs a little per call).")
        boolean serverTiming;

        @CommandLine.Option(names = "--server-cpus", paramLabel = "LIST", description = "Run the server on these CPUs "
                + "only (Linux, taskset -c LIST, e.g. 0), and run this command on the others (taskset -c 1 tern bench "
                + "compare ...), so that the load generator takes no CPU from the server.")
        String serverCpus;

        @CommandLine.Option(names = "--server-jfr", paramLabel = "FILE", description = "Record the server with JDK Flight "
                + "Recorder (settings=profile: CPU samples, allocation, locks, GC) from its start to its end into FILE "
                + "(open it with JDK Mission Control, or jfr view FILE), and print the share of the runs' time (their "
                + "warm-ups included) it spent paused for garbage collection.")
        Path serverJfr;

        @CommandLine.Option(names = "--header", paramLabel = "'NAME: VALUE'",
                description = "A header every HTTP request carries (repeatable), e.g. --header 'Authorization: Bearer "
                        + "TOKEN' against a server that needs a token.")
        List<String> headers = List.of();

        @CommandLine.Option(names = "--server-arg", paramLabel = "ARG", description = "One more argument for the "
                + "server's tern serve (repeatable), e.g. --server-arg=--metrics to measure what metrics cost.")
        List<String> extraServerArgs = List.of();

        @CommandLine.Option(names = "--traces", description = "Serve with --traces and make an OpenTelemetry CLIENT span "
                + "of each MCP request, its trace context in the request's _meta, so that the server's spans join the "
                + "bench's traces (REST requests carry none); both exported as the OTEL_* variables say. The figures "
                + "then include the spans' cost.")
        boolean traces;

        @CommandLine.Mixin
        Output output = new Output();

        @Override
        public Integer call() throws Exception {
            PrintStream err = System.err;
            CompareRun compare;
            try {
                LoadSpec spec = (connections != null ? LoadSpec.closedLoop(connections, Durations.parse(duration))
                        : LoadSpec.openLoop(rate, Durations.parse(duration))).withWarmup(Durations.parse(warmup));
                List<String> args = serverArgs(serverTiming);
                args.addAll(extraServerArgs);
                if (traces && !args.contains("--traces")) {
                    args.add("--traces");
                }
                compare = CompareRun.of(Main.class.getName(), args, spec).headers(parseHeaders(headers))
                        .http(HttpVersion.parse(http)).userId(id).serverCpus(serverCpus).serverJfr(serverJfr)
                        .quiet(output.quiet).label(output.label).log(err);
            } catch (IllegalArgumentException e) {
                err.println("tern bench compare: " + e.getMessage());
                return 2;
            }
            Observability observability;
            try {
                observability = traces ? clientTraces() : null;
            } catch (RuntimeException e) {
                err.println("tern bench compare: --traces: " + e.getMessage());
                return 2;
            }
            if (observability != null) {
                compare.tracer(observability.client().tracer());
            }
            try (observability) {
                CompareRun.Compared compared = compare.run();
                output.write(compared.result(), System.out, Reports.compare(List.of(compared.result()),
                        compared.baseline()));
                return 0;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 1;
            } catch (BenchFailure | java.io.IOException e) {
                err.println("tern bench compare: " + e.getMessage());
                return 1;
            }
        }

        /** What the child server runs: {@code tern serve} with the user-directory example on an ephemeral port. */
        static List<String> serverArgs(boolean serverTiming) {
            List<String> args = new ArrayList<>(List.of("serve", "--example", "user-directory", "--host", "127.0.0.1",
                    "--port", "0"));
            if (serverTiming) {
                args.add("--server-timing");
            }
            return args;
        }
    }

    /** {@code tern bench listens}: many open 2026-07-28 listens on one server, its memory, and a list change's fan-out. */
    @CommandLine.Command(name = "listens", mixinStandardHelpOptions = true,
            description = {"Open many 2026-07-28 subscriptions/listen streams for tool-list changes over h2c (many "
                + "streams per connection, the connections from loopback addresses 127.0.0.2 and up), sample the "
                + "server's RSS and live heap (after a full GC, by jcmd) once all are acknowledged, then call a tool "
                + "that changes the tool list and time the notification's arrival on every listen (first, p50, p99, "
                + "last).",
                "Without --url it serves Tern's conformance example (whose test_trigger_tool_change tool changes the "
                    + "list) in a child JVM on 127.0.0.1, with --max-sessions raised to --count, and stops it after."})
    static final class Listens implements Callable<Integer> {
        @CommandLine.Option(names = "--url", paramLabel = "URL", description = "A running server on 127.0.0.1 instead "
                + "(its --max-sessions at least --count); give --pid to sample its memory.")
        URI url;

        @CommandLine.Option(names = "--pid", paramLabel = "PID", description = "With --url: the server's process.")
        long pid;

        @CommandLine.Option(names = "--count", paramLabel = "N", defaultValue = "10000",
                description = "Listens to open, at most " + ListenFanOut.MAX_COUNT + " (default: ${DEFAULT-VALUE}).")
        int count;

        @CommandLine.Option(names = "--streams-per-connection", paramLabel = "N", defaultValue = "200",
                description = "HTTP/2 streams per connection; a Tern server allows 256 (default: ${DEFAULT-VALUE}).")
        int streamsPerConnection;

        @CommandLine.Option(names = "--per-address", paramLabel = "N", defaultValue = "1000",
                description = "Listens from one loopback address at most; a Tern server gives one client "
                    + "--max-sessions-per-client (1,000) (default: ${DEFAULT-VALUE}).")
        int perAddress;

        @CommandLine.Option(names = "--tool", paramLabel = "NAME", defaultValue = "test_trigger_tool_change",
                description = "The tool whose call changes the tool list (default: ${DEFAULT-VALUE}).")
        String tool;

        @CommandLine.Option(names = "--args", paramLabel = "JSON", defaultValue = "{}",
                description = "Its arguments (default: ${DEFAULT-VALUE}).")
        String args;

        @CommandLine.Option(names = "--deadline", paramLabel = "TIME", defaultValue = "5m",
                description = "The whole run's bound (default: ${DEFAULT-VALUE}).")
        String deadline;

        @CommandLine.Option(names = "--fan-out-timeout", paramLabel = "TIME", defaultValue = "60s",
                description = "How long to wait for every notification (default: ${DEFAULT-VALUE}).")
        String fanOutTimeout;

        @CommandLine.Option(names = "--server-jvm-option", paramLabel = "OPTION", description = "A JVM option for the "
                + "served child after this JVM's own (repeatable), e.g. --server-jvm-option=-Xmx512m.")
        List<String> serverJvmOptions = List.of();

        @CommandLine.Option(names = "--md", paramLabel = "FILE", description = "Write the Markdown table.")
        Path md;

        @Override
        public Integer call() throws Exception {
            PrintStream err = System.err;
            ListenFanOut fanOut;
            try {
                ListenFanOut.Builder b = ListenFanOut.builder().count(count).streamsPerConnection(streamsPerConnection)
                        .perAddress(perAddress).trigger(tool, args)
                        .deadline(Durations.parse(deadline), Durations.parse(fanOutTimeout)).log(err);
                if (url != null) {
                    b.url(url, pid);
                } else if (pid != 0) {
                    throw new IllegalArgumentException("--pid goes with --url");
                } else {
                    b.serve(Main.class.getName(), serverArgs(count), serverJvmOptions);
                }
                fanOut = b.build();
            } catch (IllegalArgumentException e) {
                err.println("tern bench listens: " + e.getMessage());
                return 2;
            }
            try {
                String markdown = fanOut.run().markdown();
                System.out.print(markdown);
                if (md != null) {
                    Reports.write(md, markdown);
                }
                return 0;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 1;
            } catch (BenchFailure | java.io.IOException e) {
                err.println("tern bench listens: " + e.getMessage());
                return 1;
            }
        }

        /** The served child: the conformance example (its tool changes the tool list), room for every listen. */
        static List<String> serverArgs(int count) {
            return List.of("serve", "--example", "conformance", "--host", "127.0.0.1", "--port", "0",
                    "--max-sessions", Integer.toString(Math.max(10_000, count)));
        }
    }

    /** {@code tern bench report}: merge labelled JSON results into one comparison. */
    @CommandLine.Command(name = "report", mixinStandardHelpOptions = true,
            description = {"Merge JSON results (tern bench ... --json FILE --label NAME) into one comparison: a table "
                + "with ratios against the baseline, and with --html a page with charts."})
    static final class Report implements Callable<Integer> {
        @CommandLine.Parameters(paramLabel = "FILE", arity = "1..*", description = "JSON result files.")
        List<Path> files;

        @CommandLine.Option(names = "--baseline", paramLabel = "LABEL",
                description = "The label the others are compared with (default: the first file's).")
        String baseline;

        @CommandLine.Option(names = "--md", paramLabel = "FILE", description = "Write the Markdown report.")
        Path md;

        @CommandLine.Option(names = "--html", paramLabel = "FILE", description = "Write the HTML report.")
        Path html;

        @Override
        public Integer call() throws Exception {
            List<BenchResult> results = new ArrayList<>();
            try {
                for (Path f : files) {
                    results.add(Reports.readJson(f));
                }
                Comparison c = Reports.compare(results, baseline != null ? baseline : results.get(0).label());
                String markdown = c.markdown();
                System.out.print(markdown);
                if (md != null) {
                    Reports.write(md, markdown);
                }
                if (html != null) {
                    Reports.write(html, c.html());
                }
                return 0;
            } catch (java.io.IOException | IllegalArgumentException e) {
                System.err.println("tern bench report: " + e.getMessage());
                return 2;
            }
        }
    }
}
