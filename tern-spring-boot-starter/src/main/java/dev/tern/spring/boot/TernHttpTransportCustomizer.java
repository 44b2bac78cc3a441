package dev.tern.spring.boot;

import dev.tern.transport.http.HttpServerTransport;

/** A bean of this type adjusts the HTTP transport after the {@code tern.mcp.*} properties are applied (TLS, routes...). */
@FunctionalInterface
public interface TernHttpTransportCustomizer {
    void customize(HttpServerTransport.Builder builder);
}
