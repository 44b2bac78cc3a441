package dev.tern.cli;

import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.tern.client.Era;
import dev.tern.client.McpClient;
import dev.tern.client.McpClientException;
import dev.tern.client.http.ClientTls;
import dev.tern.client.http.HttpProtocol;
import dev.tern.observability.Observability;
import dev.tern.protocol.Json;
import dev.tern.protocol.McpException;
import dev.tern.protocol.model.CallToolResult;
import picocli.CommandLine;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/** {@code tern call}: one request to an MCP server with Tern's client, the answer as JSON on stdout. */
@CommandLine.Command(name = "call", mixinStandardHelpOptions = true,
        description = {"Send one request to an MCP server and print the answer as JSON.",
            "The server is a Streamable HTTP endpoint (--url) or a command started over stdio (--stdio)."},
        footer = {"", "What to do:",
            "  tools                     list the tools (all pages)",
            "  tool NAME ['{json}']      call a tool with JSON arguments",
            "  resources                 list the resources",
            "  resource URI              read a resource",
            "  prompts                   list the prompts",
            "  prompt NAME ['{json}']    get a prompt with string arguments",
            "  ping                      check that the server answers",
            "", "Examples (from the folder of the tern script; the first one with ./tern serve running):",
            "  ./tern call --url http://127.0.0.1:8080/mcp tool get_user '{\"id\":\"7\"}'",
            "  ./tern call --url ws://127.0.0.1:8080/mcp/ws tools",
            "  ./tern call --stdio \"./tern serve --stdio\" resource users://stats",
            "", "Exit codes: 0 success, 1 an error answer (JSON-RPC error or a tool error result) or no answer, "
                + "2 bad usage."})
final class CallCommand implements Callable<Integer> {

    @CommandLine.ArgGroup(multiplicity = "1")
    Server server;

    static final class Server {
        @CommandLine.Option(names = "--url", paramLabel = "URL", required = true,
                description = "The MCP endpoint, e.g. http://127.0.0.1:8080/mcp or https://..., or a WebSocket "
                        + "endpoint, ws://127.0.0.1:8080/mcp/ws or wss://...; a URL without a path means its /mcp "
                        + "(/mcp/ws for ws:// and wss://).")
        URI url;

        @CommandLine.Option(names = "--stdio", paramLabel = "COMMAND", required = true,
                description = "Start this command and talk to it over stdin/stdout (split on spaces; quotes group).")
        String stdio;
    }

    @CommandLine.Option(names = "--era", paramLabel = "ERA", defaultValue = "AUTO",
            description = "Protocol era: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}: 2026-07-28 when the "
                    + "server speaks it, else an initialize session).")
    Era era;

    @CommandLine.Option(names = "--http", paramLabel = "VERSION",
            description = "HTTP version: ${COMPLETION-CANDIDATES} (default: HTTP_1_1 for http URLs, H2 by ALPN for https). "
                    + "With a WebSocket URL: H2 (wss://) or H2C (ws://) opens the WebSocket on an HTTP/2 stream (RFC "
                    + "8441 extended CONNECT), HTTP_1_1 (the default) by the HTTP/1.1 upgrade.")
    HttpProtocol http;

    @CommandLine.Option(names = "--insecure",
            description = "Trust any TLS certificate (self-signed development servers only).")
    boolean insecure;

    @CommandLine.Option(names = "--ca", paramLabel = "FILE",
            description = "Trust the PEM certificates in FILE (the server's own or its certificate authority's) instead "
                    + "of the JDK's default authorities.")
    java.nio.file.Path ca;

    @CommandLine.Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "30s",
            converter = DurationConverter.class,
            description = "How long to wait for the answer, " + DurationConverter.FORMS + " (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @CommandLine.Option(names = "--verbose", description = "Copy the stdio server's stderr to stderr.")
    boolean verbose;

    @CommandLine.Option(names = "--traces", description = "Make an OpenTelemetry CLIENT span of each request and put "
            + "its trace context in the request's _meta, so that the server's span joins the trace; exported as the "
            + "OTEL_* variables say, under the service name " + SERVICE_NAME + " unless OTEL_SERVICE_NAME gives one.")
    boolean traces;

    /** The service {@code --traces} names in the spans it exports. */
    static final String SERVICE_NAME = "tern-call";

    @CommandLine.Parameters(index = "0", paramLabel = "WHAT",
            description = "tools, tool, resources, resource, prompts, prompt or ping (see below).")
    String what;

    @CommandLine.Parameters(index = "1..*", paramLabel = "ARG", arity = "0..2",
            description = "The tool or prompt name and its JSON arguments, or the resource URI.")
    List<String> args = new ArrayList<>();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintStream out = System.out;
        PrintStream err = System.err;
        Action action;
        try {
            action = action();
        } catch (IllegalArgumentException e) {
            err.println("tern call: " + e.getMessage());
            return 2;
        }
        Observability observability;
        try {
            observability = traces ? Observability.builder().tracing(true).serviceName(SERVICE_NAME).build() : null;
        } catch (RuntimeException e) {
            err.println("tern call: --traces: " + e.getMessage());
            return 2;
        }
        // Closed after the client, so that it exports the spans of every request the client sent.
        try (observability) {
            return call(action, observability, out, err);
        }
    }

    private int call(Action action, Observability observability, PrintStream out, PrintStream err) {
        McpClient client;
        try {
            client = client(err, observability);
        } catch (IllegalArgumentException e) {
            err.println("tern call: " + e.getMessage());
            return 2;
        } catch (RuntimeException e) {
            err.println("tern call: " + e.getMessage());
            return 1;
        }
        try (client) {
            Object result = action.run(client).get(timeout.toNanos() + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS);
            out.println(Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(result));
            out.flush();
            if (result instanceof CallToolResult r && Boolean.TRUE.equals(r.isError())) {
                err.println("tern call: the tool reported an error (isError: true)");
                return 1;
            }
            return 0;
        } catch (ExecutionException e) {
            err.println("tern call: " + describe(e.getCause()));
            return 1;
        } catch (TimeoutException e) {
            err.println("tern call: no answer within " + timeout);
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("tern call: interrupted");
            return 1;
        }
    }

    private interface Action {
        CompletableFuture<?> run(McpClient client);
    }

    private Action action() {
        return switch (what) {
            case "tools" -> noArgs(McpClient::listTools);
            case "resources" -> noArgs(McpClient::listResources);
            case "prompts" -> noArgs(McpClient::listPrompts);
            case "ping" -> noArgs(c -> c.ping().thenApply(v -> Json.object()));
            case "tool" -> {
                String name = name("tool");
                JsonNode arguments = jsonArgument();
                yield c -> c.callTool(name, arguments);
            }
            case "resource" -> {
                String uri = name("resource");
                if (args.size() > 1) {
                    throw new IllegalArgumentException("resource takes one URI, got " + args);
                }
                yield c -> c.readResource(uri);
            }
            case "prompt" -> {
                String name = name("prompt");
                JsonNode arguments = jsonArgument();
                Map<String, String> strings = new java.util.LinkedHashMap<>();
                if (arguments != null) {
                    for (Map.Entry<String, JsonNode> e : arguments.properties()) {
                        strings.put(e.getKey(), e.getValue().isString() ? e.getValue().stringValue() : e.getValue().toString());
                    }
                }
                yield c -> c.getPrompt(name, strings);
            }
            default -> throw new IllegalArgumentException("unknown action '" + what
                    + "' (expected: tools, tool, resources, resource, prompts, prompt or ping)");
        };
    }

    private Action noArgs(Action action) {
        if (!args.isEmpty()) {
            throw new IllegalArgumentException(what + " takes no arguments, got " + args);
        }
        return action;
    }

    private String name(String kind) {
        if (args.isEmpty()) {
            throw new IllegalArgumentException(kind + " needs a " + (kind.equals("resource") ? "URI" : "name"));
        }
        return args.get(0);
    }

    private JsonNode jsonArgument() {
        if (args.size() < 2) {
            return null;
        }
        try {
            JsonNode node = Json.mapper().readTree(args.get(1).getBytes(StandardCharsets.UTF_8));
            if (!node.isObject()) {
                throw new IllegalArgumentException("arguments must be a JSON object, got " + args.get(1));
            }
            return node;
        } catch (JacksonException e) {
            throw new IllegalArgumentException("arguments are not valid JSON: " + e.getOriginalMessage());
        }
    }

    private McpClient client(PrintStream err, Observability observability) {
        if (server.url != null && McpClient.isWebSocket(server.url)) {
            boolean secure = "wss".equalsIgnoreCase(server.url.getScheme());
            if (http == HttpProtocol.H2 && !secure || http == HttpProtocol.H2C && secure) {
                throw new IllegalArgumentException("--http " + http + " with " + server.url.getScheme() + "://"
                        + " (expected: H2 with wss://, H2C with ws://, or HTTP_1_1)");
            }
            McpClient.WebSocketBuilder b = McpClient.webSocket(server.url).era(era).requestTimeout(timeout)
                    .clientInfo("tern-call", "0.1.0").http2(http != null && http != HttpProtocol.HTTP_1_1);
            ClientTls trust = trust();
            if (trust != null) {
                b.tls(trust);
            }
            return traced(b, observability).build();
        }
        if (server.url != null) {
            McpClient.HttpBuilder b = McpClient.http(server.url).era(era).requestTimeout(timeout)
                    .clientInfo("tern-call", "0.1.0")
                    .protocol(http != null ? http : "https".equalsIgnoreCase(server.url.getScheme())
                            ? HttpProtocol.H2 : HttpProtocol.HTTP_1_1);
            ClientTls trust = trust();
            if (trust != null) {
                b.tls(trust);
            }
            return traced(b, observability).build();
        }
        List<String> command = split(server.stdio);
        if (command.isEmpty()) {
            throw new IllegalArgumentException("--stdio needs a command");
        }
        McpClient.StdioBuilder b = McpClient.stdio(command).era(era).requestTimeout(timeout)
                .clientInfo("tern-call", "0.1.0");
        if (verbose) {
            b.stderr(err::println);
        }
        return traced(b, observability).build();
    }

    private static <B extends McpClient.Builder<B>> B traced(B builder, Observability observability) {
        return observability == null ? builder : builder.tracer(observability.client().tracer());
    }

    /** The certificates --insecure or --ca trust, or {@code null} for the JDK's default authorities. */
    private ClientTls trust() {
        if (insecure && ca != null) {
            throw new IllegalArgumentException("--insecure trusts every certificate: give it or --ca, not both");
        }
        if (insecure) {
            return ClientTls.insecure();
        }
        if (ca != null) {
            if (!java.nio.file.Files.isReadable(ca)) {
                throw new IllegalArgumentException("--ca " + ca + ": no such readable file");
            }
            return ClientTls.builder().trustPem(ca).build();
        }
        return null;
    }

    /** The failure in one line, with what to do when the server's TLS certificate was not trusted. */
    static String describe(Throwable t) {
        String described = describeOnly(t);
        return untrustedCertificate(t) ? described + "; the server's TLS certificate is not trusted: give --ca FILE "
                + "with the PEM certificate of the server or of its certificate authority, or --insecure for a "
                + "development server's self-signed one" : described;
    }

    private static boolean untrustedCertificate(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof java.security.cert.CertificateException
                    || c instanceof java.security.cert.CertPathBuilderException
                    || c instanceof java.security.cert.CertPathValidatorException) {
                return true;
            }
        }
        return false;
    }

    private static String describeOnly(Throwable t) {
        return switch (t) {
            case McpException e -> "error " + e.code() + ": " + e.getMessage()
                    + (e.data() == null ? "" : " (data: " + e.data() + ")");
            case McpClientException e -> e.getMessage();
            case TimeoutException e -> "no answer: " + e.getMessage();
            case null -> "failed";
            default -> t.getClass().getSimpleName() + ": " + t.getMessage();
        };
    }

    /** Splits a command line on whitespace; single or double quotes group words. */
    static List<String> split(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = null;
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    word.append(c);
                }
            } else if (c == '"' || c == '\'') {
                quote = c;
                if (word == null) {
                    word = new StringBuilder();
                }
            } else if (Character.isWhitespace(c)) {
                if (word != null) {
                    words.add(word.toString());
                    word = null;
                }
            } else {
                if (word == null) {
                    word = new StringBuilder();
                }
                word.append(c);
            }
        }
        if (quote != 0) {
            throw new IllegalArgumentException("unbalanced quote in --stdio command: " + line);
        }
        if (word != null) {
            words.add(word.toString());
        }
        return words;
    }
}
