package dev.tern.bench.targets;

/** Which MCP protocol era a target speaks. */
public enum Era {
    /** 2026-07-28: stateless requests, each carrying its version and client information in {@code _meta}. */
    MODERN,
    /** 2025-11-25: {@code initialize} first, then requests within the session. */
    LEGACY,
    /** Modern when the server answers {@code server/discover}, legacy otherwise. */
    AUTO
}
