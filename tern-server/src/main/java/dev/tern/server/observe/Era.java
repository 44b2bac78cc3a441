package dev.tern.server.observe;

/** Which era of the protocol a request belongs to. */
public enum Era {
    /** 2026-07-28 and later: every request stands alone. */
    STATELESS("stateless"),
    /** 2025-11-25 and earlier: requests within a session opened by {@code initialize}. */
    SESSION("session");

    private final String label;

    Era(String label) {
        this.label = label;
    }

    /** The value of the {@code tern.mcp.era} attribute and the access log's {@code era}. */
    public String label() {
        return label;
    }
}
