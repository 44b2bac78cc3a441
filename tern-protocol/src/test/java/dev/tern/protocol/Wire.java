package dev.tern.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;

/** Small utilities shared by the codec tests. */
final class Wire {
    private Wire() {
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Bytes written as a mix of ASCII text and hex escapes: {@code bytes("{\"a\":\"", 0xC3, 0x28, "\"}")}. */
    static byte[] bytes(Object... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (Object p : parts) {
            if (p instanceof String s) {
                out.writeBytes(utf8(s));
            } else {
                out.write((Integer) p);
            }
        }
        return out.toByteArray();
    }

    static JsonRpcFailure failure(Decoded decoded) {
        assertThat(decoded).isInstanceOf(Decoded.Invalid.class);
        return ((Decoded.Invalid) decoded).failure();
    }

    /** Asserts {@code decoded} is a rejection with {@code code} addressed to {@code id} (null: unknown id). */
    static JsonRpcFailure assertRejected(Decoded decoded, int code, RequestId id) {
        JsonRpcFailure f = failure(decoded);
        assertThat(f.error().code()).as("error code of %s", f).isEqualTo(code);
        assertThat(f.id()).as("id of %s", f).isEqualTo(id);
        assertThat(f.error().message()).isNotBlank();
        return f;
    }

    static JsonRpcMessage single(Decoded decoded) {
        assertThat(decoded).as("decoded").isInstanceOf(Decoded.Single.class);
        return ((Decoded.Single) decoded).message();
    }
}
