package dev.tern.cli;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.List;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The keys that nodes serving together must share, derived from {@code --secret}: one key per purpose, so that no key
 * serves two. The first secret makes the keys in use; the others are still accepted while a rotation reaches every
 * node.
 */
final class SharedSecrets {
    static final int MIN_LENGTH = 32;

    private final List<String> secrets;

    private SharedSecrets(List<String> secrets) {
        this.secrets = secrets;
    }

    static SharedSecrets of(List<String> secrets) {
        for (String s : secrets) {
            if (s.getBytes(StandardCharsets.UTF_8).length < MIN_LENGTH) {
                throw new IllegalArgumentException("a secret must be at least " + MIN_LENGTH + " bytes long");
            }
        }
        return new SharedSecrets(List.copyOf(secrets));
    }

    boolean present() {
        return !secrets.isEmpty();
    }

    /** The key sealing 2026-07-28 {@code requestState}, then the older ones. */
    List<byte[]> requestStateKeys() {
        return keys("tern requestState");
    }

    /** The key signing legacy session ids, then the older ones. */
    List<byte[]> sessionIdKeys() {
        return keys("tern session id");
    }

    private List<byte[]> keys(String purpose) {
        return secrets.stream().map(s -> derive(s, purpose)).toList();
    }

    private static byte[] derive(String secret, String purpose) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return mac.doFinal(purpose.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }
}
