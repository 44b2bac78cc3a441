package dev.tern.observability;

/** Which era of the protocol a request belongs to. */
public enum Era {
    /** 2026-07-28 and later: every request stands alone. */
    STATELESS("stateless"),
    /** 2025-11-25 and earlier: requests within a session opened by {@code initialize}. */
    SESSION("session");

    final String label;

    Era(String label) {
        this.label = label;
    }
}
