package dev.tern.cli;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.tern.auth.CertificateIdentity;
import dev.tern.auth.RateLimiter;
import dev.tern.auth.ResourceServer;
import dev.tern.examples.Examples;
import dev.tern.observability.Observability;
import dev.tern.redis.Redis;
import dev.tern.redis.RedisEventStore;
import dev.tern.redis.RedisNotificationBus;
import dev.tern.redis.RedisResultCache;
import dev.tern.redis.RedisSessionStore;
import dev.tern.redis.RedisTaskQueue;
import dev.tern.redis.RedisTaskStore;
import dev.tern.bench.Durations;
import dev.tern.server.CachePolicy;
import dev.tern.server.CacheScope;
import dev.tern.server.McpServer;
import dev.tern.server.observe.McpObserver;
import dev.tern.transport.http.HttpServerTransport;
import dev.tern.transport.http.IoTransport;
import dev.tern.transport.http.RouteResponse;
import dev.tern.transport.stdio.StdioServerTransport;
import picocli.CommandLine;

/** {@code tern serve}: serves an example server. */
@CommandLine.Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Serve an MCP server.",
            "By default over Streamable HTTP on http://127.0.0.1:8080/mcp (both protocol eras, HTTP/1.1 and h2c); "
                + "with --stdio over stdin/stdout (newline-delimited JSON; logs on stderr)."},
        footer = {"", "Every option can also come from an environment variable (TERN_PORT for --port, TERN_TLS for --tls, ...)",
            "or a properties file (--config FILE or TERN_CONFIG; keys are option names without dashes: port=9000).",
            "Precedence: command line, then environment, then config file, then the defaults shown."})
final class ServeCommand implements Callable<Integer> {

    @CommandLine.Option(names = "--stdio", description = "Serve over stdin/stdout instead of HTTP.")
    boolean stdio;

    @CommandLine.Option(names = "--config", paramLabel = "FILE",
            description = "A properties file with option values (see below).")
    java.nio.file.Path config;

    @CommandLine.Option(names = "--host", paramLabel = "ADDRESS", defaultValue = "127.0.0.1",
            description = "Address to bind (default: ${DEFAULT-VALUE}; other hosts must be allowed explicitly).")
    String host;

    @CommandLine.Option(names = "--port", paramLabel = "PORT", defaultValue = "8080",
            description = "TCP port; 0 picks a free one (default: ${DEFAULT-VALUE}).")
    int port;

    @CommandLine.Option(names = "--path", paramLabel = "PATH", defaultValue = "/mcp",
            description = "The MCP endpoint's path (default: ${DEFAULT-VALUE}).")
    String path;

    @CommandLine.Option(names = "--tls", description = "Serve HTTPS (h2 and http/1.1 by ALPN); without --cert/--key "
            + "a self-signed development certificate is made at start-up.")
    boolean tls;

    @CommandLine.Option(names = "--cert", paramLabel = "FILE", description = "PEM certificate chain for --tls.")
    java.nio.file.Path cert;

    @CommandLine.Option(names = "--key", paramLabel = "FILE", description = "PEM (PKCS#8) private key for --tls.")
    java.nio.file.Path key;

    @CommandLine.Option(names = "--tls-protocols", paramLabel = "LIST", split = ",", defaultValue = "TLSv1.3,TLSv1.2",
            description = "The TLS versions offered: TLSv1.3 and/or TLSv1.2, e.g. TLSv1.3 alone (default: ${DEFAULT-VALUE}).")
    List<String> tlsProtocols;

    @CommandLine.Option(names = "--tls-client-auth", paramLabel = "MODE", defaultValue = "none",
            description = "Ask clients for a certificate: none, optional (one presented must be valid) or required "
                    + "(default: ${DEFAULT-VALUE}); needs --tls-trust.")
    String tlsClientAuth;

    @CommandLine.Option(names = "--tls-trust", paramLabel = "FILE",
            description = "PEM certificates of the authorities client certificates must chain to.")
    java.nio.file.Path tlsTrust;

    @CommandLine.Option(names = "--tls-crl", paramLabel = "FILE",
            description = "PEM CRLs, one from each authority of the client certificates: a revoked one is refused.")
    java.nio.file.Path tlsCrl;

    @CommandLine.Option(names = "--tls-reload-interval", paramLabel = "DURATION", defaultValue = "10s",
            converter = DurationConverter.class,
            description = "How often the --cert, --key, --tls-trust and --tls-crl files are checked for changes; new "
                    + "connections get the new ones, files that do not load are logged and the old kept; 0 never "
                    + "(default: ${DEFAULT-VALUE}).")
    Duration tlsReloadInterval;

    @CommandLine.Option(names = "--tls-ocsp-stapling",
            description = "Staple the certificate's OCSP response, fetched from the responder the certificate names "
                    + "(the --cert file must hold the issuer's certificate after it) and refreshed half-way to its "
                    + "expiry; needs BoringSSL (linux-x86_64).")
    boolean tlsOcspStapling;

    @CommandLine.Option(names = "--hsts", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Send Strict-Transport-Security with this max-age on HTTPS responses, e.g. 8760h (a year) "
                    + "(default: not sent).")
    Duration hsts;

    @CommandLine.Option(names = "--hsts-include-subdomains",
            description = "Add includeSubDomains to the Strict-Transport-Security header.")
    boolean hstsIncludeSubdomains;

    @CommandLine.Option(names = "--example", paramLabel = "NAME", defaultValue = Examples.DEFAULT,
            description = "Which example to serve: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).",
            completionCandidates = ExampleNames.class)
    String example;

    @CommandLine.Option(names = "--jar", paramLabel = "FILE",
            description = "Serve the tools, resources and prompts of this jar instead of an example (repeatable): "
                    + "every dev.tern.server.McpServerProvider it lists in " + ProvidedServer.SERVICE_FILE
                    + " adds to one server, and so does every class with @Tool, @Resource or @Prompt methods named "
                    + "in " + ProvidedServer.ANNOTATED_FILE + " (one a line, made by its no-argument constructor).")
    List<java.nio.file.Path> jars = List.of();

    @CommandLine.Option(names = "--classpath", paramLabel = "LIST",
            description = "Like --jar, for jars and class folders separated by the platform's path separator "
                    + "(: or ;), e.g. my-tools.jar:lib/dep.jar.")
    List<String> classpaths = List.of();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Option(names = "--shutdown-timeout", paramLabel = "DURATION", defaultValue = "5s",
            description = "How long in-flight requests may take to finish on shutdown, " + DurationConverter.FORMS
                    + " (default: ${DEFAULT-VALUE}).",
            converter = DurationConverter.class)
    Duration shutdownTimeout;

    @CommandLine.Option(names = "--max-sessions", paramLabel = "N", defaultValue = "10000",
            description = "Legacy sessions held at once; the same bound, each on its own, for open 2026-07-28 listens and "
                    + "2024-11-05 SSE connections; beyond it 503 (default: ${DEFAULT-VALUE}).")
    int maxSessions;

    @CommandLine.Option(names = "--max-sessions-per-client", paramLabel = "N", defaultValue = "1000",
            description = "The most one client (its IP address; an IPv6 address's /64) holds of each of those bounds; "
                    + "beyond it 429. Behind a proxy all clients share its address: raise it there "
                    + "(default: ${DEFAULT-VALUE}).")
    int maxSessionsPerClient;

    @CommandLine.Option(names = "--allow-host", paramLabel = "NAME", split = ",",
            description = "Another Host name clients may use (repeatable or comma-separated), e.g. the server's DNS name "
                    + "when bound beyond loopback; other Hosts get 403 (DNS-rebinding protection).")
    List<String> allowedHosts = List.of();

    @CommandLine.Option(names = "--allow-origin", paramLabel = "ORIGIN", split = ",",
            description = "Another Origin browsers may call from (repeatable or comma-separated), e.g. https://app.example; "
                    + "origins on allowed hosts are always accepted.")
    List<String> allowedOrigins = List.of();

    @CommandLine.Option(names = "--server-timing", description = "Add a Server-Timing header (parse, queue, exec, ser) "
            + "to JSON responses; tern bench reports the split.")
    boolean serverTiming;

    @CommandLine.Option(names = "--sse-replies", description = "Answer every POSTed MCP request with an SSE stream, "
            + "even a lone answer (default: a lone answer is one JSON body).")
    boolean sseReplies;

    @CommandLine.Option(names = "--io", paramLabel = "TRANSPORT", defaultValue = "auto",
            converter = IoTransportConverter.class,
            description = "How the HTTP server reaches its sockets: auto (epoll where the platform has it, else NIO), "
                    + "epoll, nio, or io_uring (less CPU per call; a connection reset right after its request lingers "
                    + "until the request timeouts) (default: ${DEFAULT-VALUE}).")
    IoTransport io;

    /** Reads {@code --io} (from the command line, the environment or the config file) with its own message. */
    static final class IoTransportConverter implements CommandLine.ITypeConverter<IoTransport> {
        @Override
        public IoTransport convert(String value) {
            try {
                return IoTransport.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    @CommandLine.Option(names = "--rest", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Also serve the tools over plain REST (POST /rest/tools/NAME, GET /rest/resources?uri=..., "
                    + "/openapi.json) and the example's own routes such as GET /users/{id} (default: ${DEFAULT-VALUE}; "
                    + "--no-rest serves MCP only).")
    boolean rest;

    @CommandLine.Option(names = "--metrics", description = "Serve metrics (OpenTelemetry's MCP histograms, Tern's "
            + "counts, JVM) in the Prometheus text format at /metrics on the main port, behind the same Host checks.")
    boolean metrics;

    @CommandLine.Option(names = "--metrics-port", paramLabel = "PORT", defaultValue = "-1",
            description = "Serve /metrics on a port of its own (on --host; 0 picks a free one) instead of the main "
                    + "port; implies --metrics (default: off).")
    int metricsPort;

    @CommandLine.Option(names = "--traces", description = "Make an OpenTelemetry span of every MCP request, exported as "
            + "the OTEL_* variables say (OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 for OTLP).")
    boolean traces;

    @CommandLine.Option(names = "--status", description = "Serve a live status page at /status (rates, latency "
            + "percentiles per method and tool, open sessions and streams, recent errors) and its figures at "
            + "/status.json on the main port, behind the same Host checks and token rules as the MCP endpoint.")
    boolean status;

    @CommandLine.Option(names = "--access-log", paramLabel = "FILE", arity = "0..1", fallbackValue = "-",
            description = "Write one JSON line per MCP request (time, method, target, outcome, duration, principal, "
                    + "session, trace id) to FILE, or with - or no value to stdout (stderr under --stdio).")
    String accessLog;

    @CommandLine.Option(names = "--redis", paramLabel = "URI",
            description = "Share legacy sessions, their SSE events, tasks, list changes and resource updates with the "
                    + "other nodes through Redis "
                    + "(redis://host:port[/db], rediss:// for TLS; a Redis Cluster by any of its nodes, "
                    + "redis-cluster://host:port[,host:port...], rediss-cluster:// for TLS), so that any node behind a "
                    + "balancer serves any "
                    + "session (default: each node keeps its own in memory).")
    String redis;

    @CommandLine.Option(names = "--redis-task-lease", paramLabel = "DURATION",
            defaultValue = RedisTaskQueue.DEFAULT_IDLE_SECONDS + "s", converter = DurationConverter.class,
            description = "With --redis: how long a running task may go unrenewed (its node died) before another node "
                    + "runs it again; nodes renew their running tasks every third of it, at most a second apart, "
                    + DurationConverter.FORMS + " (default: ${DEFAULT-VALUE}).")
    Duration redisTaskLease;

    @CommandLine.Option(names = "--redis-task-deliveries", paramLabel = "N",
            defaultValue = RedisTaskQueue.DEFAULT_MAX_DELIVERIES + "",
            description = "With --redis: how many times a task is started before it is given up; it then fails and its "
                    + "entry moves to the dead-letter stream tern:{tasks}:dead (default: ${DEFAULT-VALUE}).")
    int redisTaskDeliveries;

    @CommandLine.Option(names = "--cache-l2",
            description = "With --redis: keep the public results of cacheable tools, resources and prompts in Redis "
                    + "too, so that one node's result serves every node (a second level behind each node's own cache).")
    boolean cacheL2;

    @CommandLine.Option(names = "--secret", paramLabel = "SECRET", split = ",",
            description = "A secret every node serving together shares (at least 32 bytes; better given in the "
                    + "environment than on a command line others can list): it seals 2026-07-28 requestState and signs "
                    + "session ids. Several, comma-separated or repeated, rotate it: the first is used, the others "
                    + "still accepted. Required with --redis.")
    List<String> secrets = List.of();

    @CommandLine.Option(names = "--cache-tool", paramLabel = "NAME=TTL[/private]", split = ",",
            description = "Keep a tool's results for TTL, shared by every caller (or per principal with /private), "
                    + "e.g. get_user=30s (repeatable or comma-separated; default: as the tools declare).")
    List<String> cacheTools = List.of();

    @CommandLine.Option(names = "--auth-issuer", paramLabel = "URL", split = ",",
            description = "Make the server an OAuth 2.1 resource server: every MCP, SSE and REST request needs an access "
                    + "token from this authorization server (its issuer identifier; repeatable or comma-separated), "
                    + "checked against the keys in its published metadata; /health and the protected resource metadata "
                    + "need none. Off by default.")
    List<String> authIssuers = List.of();

    @CommandLine.Option(names = "--auth-audience", paramLabel = "URI",
            description = "With --auth-issuer: the canonical URI of the MCP endpoint as clients reach it, which every "
                    + "token's audience must name (default: the endpoint's URL, http[s]://HOST:PORT/PATH).")
    String authAudience;

    @CommandLine.Option(names = "--auth-scopes", paramLabel = "SCOPE", split = ",",
            description = "With --auth-issuer: the scopes the protected resource metadata lists (repeatable or "
                    + "comma-separated; default: every scope the example's tools, resources and prompts need).")
    List<String> authScopes = List.of();

    @CommandLine.Option(names = "--auth-rate-limit", paramLabel = "N", defaultValue = "0",
            description = "With --auth-issuer: the requests a second each principal may average, in bursts of up to "
                    + "twice that; beyond it 429 with Retry-After (default: ${DEFAULT-VALUE}, no limit).")
    double authRateLimit;

    @CommandLine.Option(names = "--auth-introspection", paramLabel = "URL",
            description = "With --auth-issuer: check tokens that are not JWTs (opaque tokens) by RFC 7662 introspection "
                    + "at this endpoint of the authorization server, authenticated with --auth-client-id and "
                    + "--auth-client-secret; answers are kept 30 s (default: only JWTs are accepted).")
    String authIntrospection;

    @CommandLine.Option(names = "--auth-token-exchange", paramLabel = "URL",
            description = "With --auth-issuer: the authorization server's token endpoint where tools exchange the "
                    + "caller's token for one for a downstream service (RFC 8693), authenticated with --auth-client-id "
                    + "and --auth-client-secret; the caller's own token is never passed on (default: off).")
    String authTokenExchange;

    @CommandLine.Option(names = "--auth-client-id", paramLabel = "ID",
            description = "With --auth-introspection or --auth-token-exchange: this server's client id at the "
                    + "authorization server.")
    String authClientId;

    @CommandLine.Option(names = "--auth-client-secret", paramLabel = "SECRET",
            description = "With --auth-client-id: its secret (better given in the environment, TERN_AUTH_CLIENT_SECRET, "
                    + "than on a command line others can list).")
    String authClientSecret;

    @CommandLine.Option(names = "--auth-client-certificates", paramLabel = "NAME",
            description = "With --auth-issuer and --tls-client-auth optional or required: a request without a token is "
                    + "the principal its verified client certificate names: subject (its distinguished name), or its "
                    + "first dns, email or uri subject alternative name (default: off, such a request gets 401).")
    String authClientCertificates;

    @CommandLine.Option(names = "--auth-client-certificate-scopes", paramLabel = "SCOPE", split = ",",
            description = "With --auth-client-certificates: the scopes a certificate principal holds (repeatable or "
                    + "comma-separated; default: none).")
    List<String> authClientCertificateScopes = List.of();

    @CommandLine.Option(names = "--startup-training", hidden = true,
            description = "Serve on a free port, call the server as a client would, and exit (the launcher's training "
                    + "run for the JVM's start-up cache).")
    boolean startupTraining;

    /** A plain HTTP route an example asked for. */
    private record ExampleRoute(String path, String description,
            java.util.function.Function<java.util.Map<String, String>, java.util.Optional<?>> handler) {
    }

    private final java.util.List<ExampleRoute> exampleRoutes = new java.util.ArrayList<>();

    /** The shared secrets, read by {@link #call}. */
    private SharedSecrets shared;

    @Override
    public Integer call() throws Exception {
        McpServer server;
        try {
            observability = ObservabilityOptions.build(this);
            shared = SharedSecrets.of(secrets);
            if (redis != null && !shared.present()) {
                throw new IllegalArgumentException("--redis needs --secret (or TERN_SECRET), the same on every node: it "
                        + "seals requestState and signs session ids");
            }
            McpObserver observer = observability == null ? McpObserver.off() : observability.observer();
            if (redis != null) {
                try {
                    sharedState = Redis.connect(redis);
                    notices = new RedisNotificationBus(sharedState);
                } catch (RuntimeException e) {
                    System.err.println("tern serve: cannot connect to Redis at " + redis + ": " + e.getMessage());
                    closeRedis(sharedState);
                    return 1;
                }
            }
            // The server-wide settings, the same whether an example or the user's jar is served.
            java.util.function.UnaryOperator<McpServer.Builder> settings =
                    b -> withSharedTasks(withCacheL2(withSecrets(b))).observer(observer);
            if (jars.isEmpty() && classpaths.isEmpty()) {
                server = Examples.create(example, (path, description, handler) ->
                        exampleRoutes.add(new ExampleRoute(path, description, handler)), settings);
            } else if (spec.commandLine().getParseResult().hasMatchedOption("--example")
                    || !Examples.DEFAULT.equals(example)) {
                throw new IllegalArgumentException("--example serves a built-in example, --jar and --classpath your "
                        + "own tools: give one or the other");
            } else {
                server = ProvidedServer.load(ProvidedServer.entries(jars, classpaths), settings);
            }
        } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
            System.err.println("tern serve: " + e.getMessage());
            closeCacheRedis();
            closeRedis(sharedState);
            return 2;
        } catch (RuntimeException e) {
            System.err.println("tern serve: cannot connect to Redis at " + redis + ": " + e.getMessage());
            closeCacheRedis();
            closeRedis(sharedState);
            return 1;
        }
        try {
            for (String spec : cacheTools) {
                cacheTool(server, spec);
            }
        } catch (IllegalArgumentException e) {
            server.close();
            if (observability != null) {
                observability.close();
            }
            closeCacheRedis();
            System.err.println("tern serve: --cache-tool: " + e.getMessage());
            closeRedis(sharedState);
            return 2;
        }
        try {
            return stdio ? serveStdio(server) : serveHttp(server);
        } finally {
            if (observability != null) {
                observability.close();
            }
            closeCacheRedis();
        }
    }

    /** The Redis connection of {@code --cache-l2}, apart from the sessions' so that neither's outage trips the other. */
    private Redis cacheRedis;

    private void closeCacheRedis() {
        if (cacheRedis != null) {
            cacheRedis.close();
            cacheRedis = null;
        }
    }

    /**
     * With --redis, tasks live in Redis, so that any node answers for a task another node runs, and wait to run in a
     * queue there, so that another node runs a task whose node stopped.
     */
    private McpServer.Builder withSharedTasks(McpServer.Builder b) {
        if (sharedState == null) {
            return b;
        }
        if (redisTaskLease.toMillis() < 3 || redisTaskDeliveries < 1) {
            throw new IllegalArgumentException("--redis-task-lease must be at least 3ms and --redis-task-deliveries at "
                    + "least 1");
        }
        taskQueue = new RedisTaskQueue(sharedState, redisTaskLease, redisTaskDeliveries);
        return b.taskStore(new RedisTaskStore(sharedState)).taskQueue(taskQueue);
    }

    /** The task queue of {@code --redis}, or null; the server closes it, and a SIGTERM before anything else. */
    private RedisTaskQueue taskQueue;

    private McpServer.Builder withCacheL2(McpServer.Builder b) {
        if (!cacheL2) {
            return b;
        }
        if (redis == null) {
            throw new IllegalArgumentException("--cache-l2 needs --redis");
        }
        cacheRedis = Redis.connect(redis);
        return b.cacheSecondLevel(new RedisResultCache(cacheRedis));
    }

    private Observability observability;

    /** Applies one {@code --cache-tool NAME=TTL[/private]}. */
    private static void cacheTool(McpServer server, String spec) {
        int eq = spec.indexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException("\"" + spec + "\" (expected: NAME=TTL or NAME=TTL/private)");
        }
        String name = spec.substring(0, eq).strip();
        String rest = spec.substring(eq + 1).strip();
        CacheScope scope = CacheScope.PUBLIC;
        if (rest.endsWith("/private")) {
            scope = CacheScope.PRIVATE;
            rest = rest.substring(0, rest.length() - "/private".length());
        } else if (rest.endsWith("/public")) {
            rest = rest.substring(0, rest.length() - "/public".length());
        }
        if (server.findTool(name).isEmpty()) {
            throw new IllegalArgumentException("no tool " + name + " (tools: "
                    + server.tools().stream().map(t -> t.name()).toList() + ")");
        }
        server.cacheTool(name, new CachePolicy(Durations.parse(rest), scope));
    }

    private int serveHttp(McpServer server) throws InterruptedException {
        HttpServerTransport.Builder builder = HttpServerTransport.builder(server).host(host).ioTransport(io)
                .port(startupTraining ? 0 : port).path(path)
                .shutdownTimeout(shutdownTimeout).serverTiming(serverTiming).sse(s -> s.replies(sseReplies))
                .restFacade(rest);
        try {
            builder.sessions(s -> s.max(maxSessions).maxPerClient(maxSessionsPerClient));
            if (shared.present()) {
                List<byte[]> keys = shared.sessionIdKeys();
                builder.sessions(s -> s.idKeys(keys.get(0), keys.subList(1, keys.size()).toArray(byte[][]::new)));
            }
        } catch (IllegalArgumentException e) {
            System.err.println("tern serve: " + e.getMessage());
            server.close();
            return 2;
        }
        if (sharedState != null) {
            builder.sessions(s -> s.store(new RedisSessionStore(sharedState)).eventStore(new RedisEventStore(sharedState)));
        }
        allowedHosts.forEach(builder::allowHost);
        allowedOrigins.forEach(builder::allowOrigin);
        ObservabilityOptions.route(observability, builder);
        if (rest) {
            for (ExampleRoute route : exampleRoutes) {
                builder.nonBlockingRoute("GET", route.path(), route.description(), request -> route.handler()
                        .apply(request.pathVariables())
                        .map(RouteResponse::json)
                        .orElseGet(() -> RouteResponse.notFound("Nothing at " + request.path())));
            }
        }
        if ((cert == null) != (key == null)) {
            System.err.println("tern serve: --cert and --key go together");
            server.close();
            return 2;
        }
        if (tls || cert != null) {
            try {
                builder.tls(this::tlsOptions);
            } catch (IllegalArgumentException e) {
                System.err.println("tern serve: " + e.getMessage());
                server.close();
                return 2;
            }
        }
        ResourceServer auth;
        try {
            auth = resourceServer(server);
        } catch (IllegalArgumentException | IllegalStateException e) {
            System.err.println("tern serve: " + e.getMessage());
            server.close();
            return 2;
        }
        if (auth != null) {
            if (authRateLimit > 0) {
                builder.auth(auth, RateLimiter.builder().perSecond(authRateLimit)
                        .burst((int) Math.max(1, Math.ceil(authRateLimit * 2))).build());
            } else {
                builder.auth(auth);
            }
        }
        HttpServerTransport transport;
        try {
            transport = builder.build().start();
        } catch (IllegalStateException | IllegalArgumentException e) {
            System.err.println("tern serve: " + e.getMessage());
            closeAll(server, auth);
            closeRedis(sharedState);
            return 2;
        } catch (Exception e) { // Netty rethrows the bind's IOException unchecked
            closeRedis(sharedState);
            if (!(e instanceof java.io.IOException)) {
                throw e;
            }
            System.err.println(cannotListen("tern serve", host, port, e));
            closeAll(server, auth);
            return 1;
        }
        if (startupTraining) {
            int trained = train(server, transport);
            closeRedis(sharedState);
            return trained;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (taskQueue != null) {
                // First, so that other nodes take up this node's tasks while its requests drain.
                taskQueue.close();
            }
            transport.close();
            closeAll(server, auth);
            if (observability != null) {
                observability.close();
            }
            closeRedis(sharedState);
            stopped.countDown();
        }, "tern-shutdown"));
        System.err.println("tern: serving " + served() + " at " + transport.url()
                + " (" + transport.ioTransport() + ")" + (redis != null ? " sharing sessions through Redis" : "")
                + (tls && cert == null ? " (self-signed development certificate: clients must trust it explicitly)" : ""));
        System.err.println("tern: connect a client with {\"type\": \"http\", \"url\": \"" + transport.url()
                + "\"}, or: npx @modelcontextprotocol/inspector --cli " + transport.url() + " --method tools/list");
        transport.options().auth().ifPresent(a -> System.err.println("tern: access tokens required, "
                + a + "; protected resource metadata at " + a.metadata().uri()));
        if (rest) {
            String base = transport.url().substring(0, transport.url().length() - path.length());
            System.err.println("tern: REST façade at " + base + "/rest/tools/{name}, OpenAPI document at " + base
                    + "/openapi.json" + (exampleRoutes.isEmpty() ? "" : ", plain REST at " + base + exampleRoutes.get(0).path()));
        }
        ObservabilityOptions.announce(observability, host, transport.url().substring(0, transport.url().length() - path.length()));
        stopped.await();
        return 0;
    }

    /** What is served, for the start-up line. */
    private String served() {
        return jars.isEmpty() && classpaths.isEmpty() ? "example \"" + example + "\""
                : String.join(java.io.File.pathSeparator, ProvidedServer.entries(jars, classpaths).stream()
                        .map(Object::toString).toList());
    }

    private McpServer.Builder withSecrets(McpServer.Builder builder) {
        if (notices != null) {
            builder.notificationBus(notices);
        }
        if (!shared.present()) {
            return builder;
        }
        List<byte[]> keys = shared.requestStateKeys();
        return builder.requestStateKeys(keys.get(0), keys.subList(1, keys.size()).toArray(byte[][]::new));
    }

    /** The connection to Redis of {@code --redis}, and the bus on it, or null. */
    private Redis sharedState;
    private RedisNotificationBus notices;

    private void closeRedis(Redis redis) {
        if (notices != null) {
            notices.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    /** The resource server {@code --auth-issuer} asks for, or {@code null} without it. */
    private ResourceServer resourceServer(McpServer server) {
        if (authIssuers.isEmpty()) {
            if (authAudience != null || !authScopes.isEmpty() || authRateLimit > 0 || authIntrospection != null
                    || authTokenExchange != null || authClientId != null || authClientSecret != null
                    || authClientCertificates != null || !authClientCertificateScopes.isEmpty()) {
                throw new IllegalArgumentException("--auth-audience, --auth-scopes, --auth-rate-limit, "
                        + "--auth-introspection, --auth-token-exchange, --auth-client-id, --auth-client-secret and "
                        + "--auth-client-certificates need --auth-issuer");
            }
            return null;
        }
        if ((authIntrospection != null || authTokenExchange != null) != (authClientId != null)
                || (authClientId != null) != (authClientSecret != null)) {
            throw new IllegalArgumentException("--auth-introspection and --auth-token-exchange go with --auth-client-id "
                    + "and --auth-client-secret (this server's credentials at the authorization server)");
        }
        if (authClientCertificates != null && "none".equalsIgnoreCase(tlsClientAuth.strip())) {
            throw new IllegalArgumentException("--auth-client-certificates needs --tls-client-auth optional or required "
                    + "(and --tls-trust)");
        }
        if (authClientCertificates == null && !authClientCertificateScopes.isEmpty()) {
            throw new IllegalArgumentException("--auth-client-certificate-scopes needs --auth-client-certificates");
        }
        String audience = authAudience;
        if (audience == null) {
            if (port == 0 || startupTraining) {
                throw new IllegalArgumentException("--auth-issuer with --port 0 needs --auth-audience (the endpoint's "
                        + "URL as clients reach it)");
            }
            audience = (tls || cert != null ? "https" : "http") + "://" + (host.contains(":") ? "[" + host + "]" : host)
                    + ":" + port + path;
        }
        ResourceServer.Builder b = ResourceServer.builder(audience);
        authIssuers.forEach(b::authorizationServer);
        b.scopesSupported((authScopes.isEmpty() ? List.copyOf(server.scopesInUse()) : authScopes)
                .toArray(String[]::new));
        if (authIntrospection != null) {
            b.introspection(authIntrospection, authClientId, authClientSecret);
        }
        if (authTokenExchange != null) {
            b.tokenExchange(authTokenExchange, authClientId, authClientSecret);
        }
        if (authClientCertificates != null) {
            b.clientCertificates(CertificateIdentity.parse(authClientCertificates),
                    authClientCertificateScopes.toArray(String[]::new));
        }
        return b.build();
    }

    private static void closeAll(McpServer server, ResourceServer auth) {
        server.close();
        if (auth != null) {
            auth.close();
        }
    }

    private void tlsOptions(dev.tern.transport.http.HttpOptions.Tls.Builder t) {
        if (cert != null) {
            t.certificate(cert, key);
        } else {
            t.selfSigned();
        }
        t.protocols(tlsProtocols.toArray(String[]::new)).reloadInterval(tlsReloadInterval).ocspStapling(tlsOcspStapling)
                .clientAuth(dev.tern.transport.http.HttpOptions.Tls.ClientAuth.parse(tlsClientAuth));
        if (tlsTrust != null) {
            t.trust(tlsTrust);
        }
        if (tlsCrl != null) {
            t.revocationList(tlsCrl);
        }
        if (hsts != null) {
            t.hsts(hsts, hstsIncludeSubdomains);
        }
    }

    /** One line naming the address, what went wrong and what to do, for a bind that failed. */
    /** The one line saying why {@code command} could not listen on host and port, and what to do. */
    static String cannotListen(String command, String host, int port, Exception e) {
        String address = (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        String reason = e.getMessage() == null ? e.getClass().getSimpleName()
                : e.getMessage().replaceFirst("^bind\\(\\.\\.\\) failed( with error\\(-?\\d+\\))?: ", "");
        boolean inUse = e instanceof java.net.BindException && reason.toLowerCase(java.util.Locale.ROOT).contains("in use")
                || reason.toLowerCase(java.util.Locale.ROOT).contains("address already in use");
        return command + ": cannot listen on " + address + ": " + reason + (inUse
                ? "; another process holds the port: stop it, or choose another port with --port N (--port 0 picks a free one)"
                : "; check --host (an address of this machine) and --port");
    }

    private int train(McpServer server, HttpServerTransport transport) {
        try {
            StartupTraining.run(transport.url());
            return 0;
        } catch (Exception e) {
            System.err.println("tern serve: the training workload failed: " + e);
            return 1;
        } finally {
            transport.close();
            server.close();
        }
    }

    private int serveStdio(McpServer server) throws InterruptedException {
        OutputStream stdout = new FileOutputStream(FileDescriptor.out);
        // Nothing but protocol messages may reach stdout: stray prints go to stderr.
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true));
        StdioServerTransport transport = StdioServerTransport.builder(server)
                .output(stdout)
                .shutdownDeadline(shutdownTimeout)
                .build();
        CountDownLatch served = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            transport.stop();
            try {
                served.await(shutdownTimeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "tern-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        System.err.println("tern: serving " + served() + " over stdio");
        try {
            StdioServerTransport.Outcome outcome = transport.serve();
            return outcome == StdioServerTransport.Outcome.OUTPUT_CLOSED ? 1 : 0;
        } finally {
            server.close();
            served.countDown();
        }
    }

    static final class ExampleNames extends java.util.ArrayList<String> {
        ExampleNames() {
            super(Examples.names());
        }
    }
}
