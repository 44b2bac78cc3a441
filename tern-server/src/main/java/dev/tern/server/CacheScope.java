package dev.tern.server;

/** Who may be served a cached result: any caller, or only the principal it was made for. */
public enum CacheScope {
    /** The result holds nothing specific to its caller: one copy serves everyone. */
    PUBLIC("public"),
    /** The result may differ per caller: a copy is kept and served per principal only, never to anonymous callers. */
    PRIVATE("private");

    private final String wire;

    CacheScope(String wire) {
        this.wire = wire;
    }

    /** The value of {@code cacheScope} in 2026-07-28 results. */
    public String wire() {
        return wire;
    }
}
