package dev.tern.bench.targets;

import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import dev.tern.bench.ConnectionObserver;
import dev.tern.bench.Operation;
import dev.tern.bench.Outcome;
import dev.tern.bench.Target;

/**
 * A plain HTTP endpoint: GET, or POST with the operation's body as JSON. Any 2xx is ok. An operation with a name
 * sends to that path (relative to the target's URL) instead.
 */
public final class RestTarget implements Target {
    private final URI uri;
    private final JdkHttp http;

    private RestTarget(URI uri, HttpVersion version, boolean insecure, Duration timeout) {
        this.uri = uri;
        this.http = new JdkHttp(version, insecure, timeout);
    }

    public static RestTarget of(URI uri, HttpVersion version, boolean insecure, Duration timeout) {
        return new RestTarget(uri, version, insecure, timeout);
    }

    @Override
    public void open(ConnectionObserver observer) throws Exception {
        http.prime(uri);
    }

    @Override
    public CompletableFuture<Outcome> call(Operation operation) {
        URI target = operation.name().isEmpty() ? uri : uri.resolve(operation.name());
        HttpRequest.Builder b = http.request(target);
        if (operation.arguments().isEmpty()) {
            b.GET();
        } else {
            b.header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(operation.arguments()));
        }
        return http.send(b.build()).thenApply(r -> r.withTimings(r.status() / 100 == 2 ? Outcome.ok()
                : Outcome.failed(Outcome.Status.HTTP_STATUS, "HTTP " + r.status() + " " + McpWire.abbreviate(r.body()))));
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
