package dev.tern.transport.http;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Makes session ids: 256 random bits, base64url. With signing keys, an id is 192 random bits and an HMAC-SHA256 tag
 * of them (128 bits) under the first key, and an id whose tag no key matches is refused before any store is asked,
 * so that guessed ids cost a shared store nothing. Thread-safe.
 */
final class SessionIds {
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder B64D = Base64.getUrlDecoder();
    private static final int TAG_BYTES = 16;

    private final SecureRandom random = new SecureRandom();
    private final SecretKeySpec[] keys;

    SessionIds(List<byte[]> keys) {
        this.keys = keys.stream().map(k -> new SecretKeySpec(k, "HmacSHA256")).toArray(SecretKeySpec[]::new);
    }

    String next() {
        if (keys.length == 0) {
            byte[] bytes = new byte[32];
            random.nextBytes(bytes);
            return B64.encodeToString(bytes);
        }
        byte[] bytes = new byte[24];
        random.nextBytes(bytes);
        return B64.encodeToString(bytes) + "." + B64.encodeToString(tag(keys[0], bytes));
    }

    /** Whether {@code id} may name a session: always without keys, else when one of the keys signed it. */
    boolean plausible(String id) {
        if (keys.length == 0) {
            return true;
        }
        int dot = id.indexOf('.');
        if (dot <= 0) {
            return false;
        }
        byte[] bytes;
        byte[] tag;
        try {
            bytes = B64D.decode(id.substring(0, dot));
            tag = B64D.decode(id.substring(dot + 1));
        } catch (IllegalArgumentException e) {
            return false;
        }
        for (SecretKeySpec key : keys) {
            if (MessageDigest.isEqual(tag, tag(key, bytes))) {
                return true;
            }
        }
        return false;
    }

    private static byte[] tag(SecretKeySpec key, byte[] bytes) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            return Arrays.copyOf(mac.doFinal(bytes), TAG_BYTES);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }
}
