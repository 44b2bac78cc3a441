package dev.tern.auth;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jose.util.JSONObjectUtils;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * An authorization server on 127.0.0.1 for the cases mock-oauth2-server does not cover: keys rotated at will, a count
 * of key-set fetches, and RFC 7662 introspection of opaque tokens that can be revoked.
 */
final class LoopbackAuthorizationServer implements AutoCloseable {
    static final String CLIENT_ID = "tern-resource";
    static final String CLIENT_SECRET = "s3cret:&=";

    private final HttpServer server;
    private final List<RSAKey> keys = new ArrayList<>();
    private final Map<String, Map<String, Object>> opaqueTokens = new ConcurrentHashMap<>();
    final AtomicInteger keyFetches = new AtomicInteger();
    final AtomicInteger introspections = new AtomicInteger();

    LoopbackAuthorizationServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.createContext("/.well-known/oauth-authorization-server", exchange -> respond(exchange, 200,
                JSONObjectUtils.toJSONString(Map.of(
                        "issuer", issuer(),
                        "jwks_uri", issuer() + "/jwks",
                        "introspection_endpoint", introspectionEndpoint()))));
        server.createContext("/jwks", exchange -> {
            keyFetches.incrementAndGet();
            String body;
            synchronized (keys) {
                body = new JWKSet(new ArrayList<JWK>(keys)).toString(true);
            }
            respond(exchange, 200, body);
        });
        server.createContext("/introspect", this::introspect);
        server.start();
        rotate();
    }

    String issuer() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    String introspectionEndpoint() {
        return issuer() + "/introspect";
    }

    /** A new signing key replaces the current one in the published set; returns it. */
    RSAKey rotate() {
        try {
            RSAKey key = new RSAKeyGenerator(2048).keyID("key-" + System.nanoTime()).generate();
            synchronized (keys) {
                keys.clear();
                keys.add(key);
            }
            return key;
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    RSAKey currentKey() {
        synchronized (keys) {
            return keys.get(0);
        }
    }

    /** A token signed with the current key, for {@code audience}, with {@code extra} claims. */
    String sign(String audience, Map<String, Object> extra) {
        return sign(currentKey(), audience, extra);
    }

    String sign(RSAKey key, String audience, Map<String, Object> extra) {
        long now = System.currentTimeMillis() / 1000;
        JWTClaimsSet.Builder claims = new JWTClaimsSet.Builder()
                .issuer(issuer()).subject("alice").audience(audience)
                .issueTime(new java.util.Date(now * 1000)).expirationTime(new java.util.Date((now + 600) * 1000));
        extra.forEach(claims::claim);
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(),
                claims.build());
        try {
            jwt.sign(new RSASSASigner(key));
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
        return jwt.serialize();
    }

    /** An opaque token the introspection endpoint calls active, with these claims. */
    void issueOpaque(String token, Map<String, Object> claims) {
        opaqueTokens.put(token, claims);
    }

    void revoke(String token) {
        opaqueTokens.remove(token);
    }

    private void introspect(HttpExchange exchange) throws IOException {
        introspections.incrementAndGet();
        String expected = "Basic " + Base64.getEncoder().encodeToString(
                (CLIENT_ID + ":" + java.net.URLEncoder.encode(CLIENT_SECRET, StandardCharsets.UTF_8))
                        .getBytes(StandardCharsets.UTF_8));
        if (!"POST".equals(exchange.getRequestMethod())
                || !expected.equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
            respond(exchange, 401, "{\"error\":\"invalid_client\"}");
            return;
        }
        String form = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        String token = null;
        for (String pair : form.split("&")) {
            if (pair.startsWith("token=")) {
                token = URLDecoder.decode(pair.substring(6), StandardCharsets.UTF_8);
            }
        }
        Map<String, Object> claims = token == null ? null : opaqueTokens.get(token);
        if (claims == null) {
            respond(exchange, 200, "{\"active\":false}");
            return;
        }
        Map<String, Object> answer = new java.util.HashMap<>(claims);
        answer.put("active", true);
        respond(exchange, 200, JSONObjectUtils.toJSONString(answer));
    }

    private static void respond(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
