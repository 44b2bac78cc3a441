package dev.tern.spring.boot;

import dev.tern.transport.http.HttpServerTransport;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the MCP listener once the application context is refreshed and stops it, draining requests in flight, when
 * the context closes; the transport is built at start so that a restarted context binds afresh.
 */
public final class TernMcpLifecycle implements SmartLifecycle {
    private final HttpServerTransport.Builder builder;
    private volatile HttpServerTransport transport;

    TernMcpLifecycle(HttpServerTransport.Builder builder) {
        this.builder = builder;
    }

    @Override
    public synchronized void start() {
        if (transport != null) {
            return;
        }
        HttpServerTransport built = builder.build();
        try {
            transport = built.start();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            built.close();
            throw new IllegalStateException("interrupted while starting the MCP listener", e);
        }
    }

    @Override
    public synchronized void stop() {
        if (transport != null) {
            transport.close();
            transport = null;
        }
    }

    @Override
    public boolean isRunning() {
        return transport != null;
    }

    /** The port the listener is bound to, useful with {@code tern.mcp.port=0}; -1 while stopped. */
    public int port() {
        HttpServerTransport current = transport;
        return current == null ? -1 : current.port();
    }

    /** The endpoint's URL, for example {@code http://127.0.0.1:8080/mcp}; null while stopped. */
    public String url() {
        HttpServerTransport current = transport;
        return current == null ? null : current.url();
    }
}
