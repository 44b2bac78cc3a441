package dev.tern.client;

/** Which protocol era a {@link McpClient} speaks. */
public enum Era {
    /** 2026-07-28: stateless requests, each carrying its version, client info and capabilities in {@code _meta}. */
    MODERN,
    /** 2025-11-25 and older: an {@code initialize} handshake, then a session ({@code Mcp-Session-Id} over HTTP). */
    LEGACY,
    /**
     * Probe with a 2026-07-28 {@code server/discover}; speak modern if the server answers it (or answers with an
     * error only a modern server sends), otherwise fall back to {@code initialize}. Decided once per client.
     */
    AUTO
}
