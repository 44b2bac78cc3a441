package dev.tern.protocol;

import java.util.Locale;

import org.jspecify.annotations.Nullable;

/** The encodings a JSON-RPC message may travel in. JSON is the default; the binary ones are used only when asked for. */
public enum WireFormat {
    JSON("application/json", "mcp", "JSON"),
    /** RFC 8949. */
    CBOR("application/cbor", "mcp.cbor", "CBOR"),
    MSGPACK("application/vnd.msgpack", "mcp.msgpack", "MessagePack");

    private final String mediaType;
    private final String subprotocol;
    private final String displayName;

    WireFormat(String mediaType, String subprotocol, String displayName) {
        this.mediaType = mediaType;
        this.subprotocol = subprotocol;
        this.displayName = displayName;
    }

    public String mediaType() {
        return mediaType;
    }

    /**
     * The WebSocket subprotocol that carries messages in this format: {@code mcp} (text frames, as the official
     * TypeScript SDK asks for), {@code mcp.cbor} and {@code mcp.msgpack} (binary frames).
     */
    public String subprotocol() {
        return subprotocol;
    }

    /** Whether the format's messages are binary (WebSocket binary frames) rather than UTF-8 text. */
    public boolean binary() {
        return this != JSON;
    }

    /** The format's name as people write it: JSON, CBOR, MessagePack. */
    public String displayName() {
        return displayName;
    }

    /** The format a WebSocket subprotocol stands for, or {@code null} for none of them. */
    public static @Nullable WireFormat ofSubprotocol(@Nullable String subprotocol) {
        if (subprotocol != null) {
            for (WireFormat f : values()) {
                if (f.subprotocol.equals(subprotocol.strip())) {
                    return f;
                }
            }
        }
        return null;
    }

    /** The format a {@code Content-Type} names (any case, parameters ignored), or {@code null} for none of them. */
    public static @Nullable WireFormat ofMediaType(@Nullable String contentType) {
        if (contentType == null) {
            return null;
        }
        int semicolon = contentType.indexOf(';');
        String type = (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).strip().toLowerCase(Locale.ROOT);
        for (WireFormat f : values()) {
            if (f.mediaType.equals(type)) {
                return f;
            }
        }
        return null;
    }
}
