package dev.tern.protocol;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The MCP revisions Tern speaks. 2026-07-28 is the stateless ("modern") era; the others use {@code initialize}
 * and sessions ("legacy").
 */
public enum ProtocolVersion {
    V2024_11_05("2024-11-05"),
    V2025_03_26("2025-03-26"),
    V2025_06_18("2025-06-18"),
    V2025_11_25("2025-11-25"),
    V2026_07_28("2026-07-28");

    /** The newest revision that is negotiated with {@code initialize}. */
    public static final ProtocolVersion LATEST_LEGACY = V2025_11_25;
    public static final ProtocolVersion LATEST = V2026_07_28;

    private static final ProtocolVersion[] VALUES = values();

    private final String id;

    ProtocolVersion(String id) {
        this.id = id;
    }

    /** The revision's date string, as it appears on the wire. */
    public String id() {
        return id;
    }

    public boolean isModern() {
        return this == V2026_07_28;
    }

    /** Only 2025-03-26 accepted JSON-RPC batches; 2025-06-18 removed them. */
    public boolean allowsBatches() {
        return this == V2025_03_26;
    }

    public boolean atLeast(ProtocolVersion other) {
        return compareTo(other) >= 0;
    }

    public static Optional<ProtocolVersion> parse(String id) {
        if (id != null) {
            for (ProtocolVersion v : VALUES) {
                if (v.id.equals(id)) {
                    return Optional.of(v);
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The version to answer an {@code initialize} with: the one asked for if we speak it and it uses
     * {@code initialize}, otherwise the newest legacy revision.
     */
    public static ProtocolVersion negotiateLegacy(String requested) {
        return parse(requested).filter(v -> !v.isModern()).orElse(LATEST_LEGACY);
    }

    /** Every revision id we speak, newest first. */
    public static List<String> supportedIds() {
        return Arrays.stream(VALUES).map(ProtocolVersion::id).sorted(java.util.Comparator.reverseOrder()).toList();
    }

    @Override
    public String toString() {
        return id;
    }
}
