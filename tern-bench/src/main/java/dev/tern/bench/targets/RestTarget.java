package dev.tern.bench.targets;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

import dev.tern.bench.ConnectionObserver;
import dev.tern.bench.Operation;
import dev.tern.bench.Outcome;
import dev.tern.bench.Target;
import dev.tern.client.http.HttpCall;

/**
 * A plain HTTP endpoint: GET, or POST with the operation's body as JSON. Any 2xx is ok. An operation with a name
 * sends to that path (relative to the target's URL unless it starts with '/') instead.
 */
public final class RestTarget implements Target {
    private final URI uri;
    private final EngineHttp http;

    private RestTarget(URI uri, HttpVersion version, boolean insecure, Duration timeout, int connections,
            java.util.List<java.util.Map.Entry<String, String>> headers) {
        this.uri = uri;
        this.http = new EngineHttp(uri, version, insecure, timeout, connections, headers);
    }

    /**
     * @param connections HTTP/1.1: at most this many connections; HTTP/2: concurrent streams
     */
    public static RestTarget of(URI uri, HttpVersion version, boolean insecure, Duration timeout, int connections) {
        return of(uri, version, insecure, timeout, connections, java.util.List.of());
    }

    /** As {@link #of(URI, HttpVersion, boolean, Duration, int)}, every request carrying {@code headers}. */
    public static RestTarget of(URI uri, HttpVersion version, boolean insecure, Duration timeout, int connections,
            java.util.List<java.util.Map.Entry<String, String>> headers) {
        return new RestTarget(uri, version, insecure, timeout, connections, headers);
    }

    @Override
    public void open(ConnectionObserver observer) {
        http.observe(observer);
    }

    @Override
    public CompletableFuture<Outcome> call(Operation operation) {
        String path = operation.name().isEmpty() ? null : operation.name();
        HttpCall call = operation.arguments().isEmpty() ? HttpCall.get(path)
                : HttpCall.post(path, "application/json",
                        operation.arguments().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return http.send(call).thenApply(r -> EngineHttp.timed(r, r.status() / 100 == 2 ? Outcome.ok()
                : Outcome.failed(Outcome.Status.HTTP_STATUS, "HTTP " + r.status() + " "
                        + McpWire.abbreviate(r.bodyText()))));
    }

    @Override
    public ScheduledExecutorService ioThread() {
        return http.ioThread();
    }

    @Override
    public String describe() {
        return "REST " + uri + " (" + http.version.label() + ")";
    }

    @Override
    public void close() {
        http.close();
    }
}
