package dev.tern.server;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import dev.tern.protocol.Json;
import dev.tern.protocol.McpException;
import dev.tern.protocol.McpMeta;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Seals the {@code requestState} of 2026-07-28 multi-round-trip results with HMAC-SHA256, binding it to the
 * request (method and a digest of its salient params) and an expiry. Tampered, foreign, expired or mismatched
 * state is rejected with -32602. Thread-safe.
 */
final class RequestStateSealer {
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder B64D = Base64.getUrlDecoder();
    private static final int MAX_STATE_LENGTH = 256 * 1024;

    /** The key that seals, then the older keys still accepted while a rotation reaches every node. */
    private final SecretKeySpec[] keys;
    private final Duration lifetime;
    private final Clock clock;

    RequestStateSealer(byte[] key, Duration lifetime, Clock clock) {
        this(java.util.List.of(key), lifetime, clock);
    }

    RequestStateSealer(java.util.List<byte[]> keys, Duration lifetime, Clock clock) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("no key");
        }
        this.keys = keys.stream().map(k -> new SecretKeySpec(k.clone(), "HmacSHA256")).toArray(SecretKeySpec[]::new);
        this.lifetime = lifetime;
        this.clock = clock;
    }

    static byte[] randomKey() {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        return key;
    }

    /** Seals the answers collected so far for the request identified by {@code binding}. */
    String seal(String binding, ObjectNode answers) {
        ObjectNode payload = Json.object();
        payload.put("b", binding);
        payload.put("e", clock.millis() + lifetime.toMillis());
        payload.set("r", answers);
        byte[] body = Json.mapper().writeValueAsBytes(payload);
        return B64.encodeToString(body) + "." + B64.encodeToString(mac(keys[0], body));
    }

    /** Opens a state, checking its seal, expiry and binding; returns the answers it carries. */
    ObjectNode open(String state, String binding) {
        if (state.length() > MAX_STATE_LENGTH) {
            throw invalid("too long");
        }
        int dot = state.indexOf('.');
        if (dot <= 0 || dot == state.length() - 1) {
            throw invalid("malformed");
        }
        byte[] body;
        byte[] tag;
        try {
            body = B64D.decode(state.substring(0, dot));
            tag = B64D.decode(state.substring(dot + 1));
        } catch (IllegalArgumentException e) {
            throw invalid("malformed");
        }
        if (!sealedByAnyKey(tag, body)) {
            throw invalid("integrity check failed");
        }
        JsonNode payload = Json.mapper().readTree(body);
        if (payload.path("e").asLong(0) < clock.millis()) {
            throw invalid("expired");
        }
        if (!binding.equals(payload.path("b").asString(""))) {
            throw invalid("issued for another request");
        }
        JsonNode answers = payload.get("r");
        return answers instanceof ObjectNode o ? o : Json.object();
    }

    /** A digest of the method and the params that identify the request, independent of key order. */
    static String binding(String method, ObjectNode params) {
        TreeMap<String, JsonNode> salient = new TreeMap<>();
        for (Map.Entry<String, JsonNode> e : params.properties()) {
            String k = e.getKey();
            if (!k.equals(McpMeta.KEY) && !k.equals("inputResponses") && !k.equals("requestState")) {
                salient.put(k, e.getValue());
            }
        }
        StringBuilder canonical = new StringBuilder(method).append('\n');
        for (Map.Entry<String, JsonNode> e : salient.entrySet()) {
            canonical.append(Json.mapper().writeValueAsString(e.getKey())).append('=');
            canonicalize(e.getValue(), canonical);
            canonical.append('\n');
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(canonical.toString().getBytes(StandardCharsets.UTF_8));
            return B64.encodeToString(digest);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }

    private static void canonicalize(JsonNode node, StringBuilder out) {
        if (node.isObject()) {
            TreeMap<String, JsonNode> sorted = new TreeMap<>();
            node.properties().forEach(e -> sorted.put(e.getKey(), e.getValue()));
            out.append('{');
            sorted.forEach((k, v) -> {
                out.append(Json.mapper().writeValueAsString(k)).append(':');
                canonicalize(v, out);
                out.append(',');
            });
            out.append('}');
        } else if (node.isArray()) {
            out.append('[');
            for (JsonNode item : node) {
                canonicalize(item, out);
                out.append(',');
            }
            out.append(']');
        } else {
            out.append(Json.mapper().writeValueAsString(node));
        }
    }

    private boolean sealedByAnyKey(byte[] tag, byte[] body) {
        for (SecretKeySpec key : keys) {
            if (MessageDigest.isEqual(tag, mac(key, body))) {
                return true;
            }
        }
        return false;
    }

    private static byte[] mac(SecretKeySpec key, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    private static McpException invalid(String why) {
        return McpException.invalidParams("Invalid requestState: " + why);
    }
}
