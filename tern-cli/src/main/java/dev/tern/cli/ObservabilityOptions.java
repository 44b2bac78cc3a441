package dev.tern.cli;

import java.nio.file.Path;

import dev.tern.observability.AccessLog;
import dev.tern.observability.Observability;
import dev.tern.observability.StatusBoard;
import dev.tern.transport.http.HttpServerTransport;
import dev.tern.transport.http.RouteResponse;

/**
 * What {@code tern serve}'s observability options make: the SDK, the {@code /metrics} and {@code /status} routes, the
 * lines announcing them.
 */
final class ObservabilityOptions {
    static final String METRICS_PATH = "/metrics";
    static final String STATUS_PATH = "/status";
    static final String STATUS_JSON_PATH = "/status.json";

    private ObservabilityOptions() {
    }

    /** The observability the options ask for, or null when they ask for none. */
    static Observability build(ServeCommand options) {
        boolean metrics = options.metrics || options.metricsPort >= 0;
        if (!metrics && !options.traces && options.accessLog == null && !options.status) {
            return null;
        }
        Observability.Builder b = Observability.builder().metrics(metrics).tracing(options.traces)
                .status(options.status);
        if (options.metricsPort >= 0) {
            b.metricsServer(options.host, options.metricsPort);
        }
        if (options.accessLog != null) {
            b.accessLog(options.accessLog.equals("-")
                    ? AccessLog.to(options.stdio ? System.err : System.out)
                    : AccessLog.toFile(Path.of(options.accessLog)));
        }
        return b.build();
    }

    /**
     * Mounts {@code /metrics} on the main port when metrics are on and have no port of their own, and {@code /status}
     * with {@code /status.json} when the status page is on.
     */
    static void route(Observability observability, HttpServerTransport.Builder builder) {
        if (observability == null) {
            return;
        }
        if (observability.statusOn()) {
            StatusBoard board = observability.status();
            builder.route("GET", STATUS_PATH, "A live status page that polls /status.json.",
                    request -> RouteResponse.of(200, "text/html; charset=utf-8", StatusBoard.page())
                            .withHeader("Content-Security-Policy", StatusBoard.CONTENT_SECURITY_POLICY)
                            .withHeader("X-Content-Type-Options", "nosniff")
                            .withHeader("Cache-Control", "no-store"));
            builder.route("GET", STATUS_JSON_PATH, "The status page's live figures as JSON.",
                    request -> RouteResponse.of(200, "application/json", board.json())
                            .withHeader("Cache-Control", "no-store"));
        }
        if (observability.metricsPort() >= 0 || !observability.metricsOn()) {
            return;
        }
        builder.route("GET", METRICS_PATH, "Metrics in the Prometheus text format (OpenMetrics when asked for).",
                request -> {
                    Observability.MetricsBody body = observability.metrics(request.header("accept"));
                    return RouteResponse.of(200, body.contentType(), body.body());
                });
    }

    /** Tells on stderr where the metrics and the status page are; {@code base} is the main port's URL without a path. */
    static void announce(Observability observability, String host, String base) {
        if (observability == null) {
            return;
        }
        if (observability.statusOn()) {
            System.err.println("tern: status page at " + base + STATUS_PATH);
        }
        if (!observability.metricsOn()) {
            return;
        }
        String at = observability.metricsPort() >= 0
                ? "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + observability.metricsPort()
                        + METRICS_PATH
                : base + METRICS_PATH;
        System.err.println("tern: metrics at " + at);
    }
}
