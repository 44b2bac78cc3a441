package dev.tern.protocol;

import java.util.Locale;

import org.jspecify.annotations.Nullable;

/** The encodings a JSON-RPC message may travel in. JSON is the default; the binary ones are used only when asked for. */
public enum WireFormat {
    JSON("application/json"),
    /** RFC 8949. */
    CBOR("application/cbor"),
    MSGPACK("application/vnd.msgpack");

    private final String mediaType;

    WireFormat(String mediaType) {
        this.mediaType = mediaType;
    }

    public String mediaType() {
        return mediaType;
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
