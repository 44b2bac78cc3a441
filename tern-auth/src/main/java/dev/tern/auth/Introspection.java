package dev.tern.auth;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.X509Certificate;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.nimbusds.jose.util.JSONObjectUtils;

/**
 * Checks an opaque token by asking the authorization server (RFC 7662), authenticated with the resource server's
 * client credentials. Answers are cached by a hash of the token, in a bounded cache, for at most the configured time
 * and never past the token's {@code exp}: a revoked token is refused at the latest when its entry ends.
 */
final class Introspection {
    /** An introspection answer: the claims of an active token, or {@code null} for an inactive one. */
    private record Answer(Map<String, Object> claims, Instant expiresAt) {
    }

    private final URI endpoint;
    private final String authorization;
    private final String resource;
    private final List<String> issuers;
    private final Duration clockSkew;
    private final HttpFetcher http;
    private final Clock clock;
    private final Cache<String, Answer> cache;

    Introspection(URI endpoint, String clientId, String clientSecret, String resource, List<String> issuers,
            Duration clockSkew, Duration cacheTtl, long cacheSize, HttpFetcher http, Clock clock) {
        this.endpoint = endpoint;
        this.authorization = HttpFetcher.basic(clientId, clientSecret);
        this.resource = resource;
        this.issuers = List.copyOf(issuers);
        this.clockSkew = clockSkew;
        this.http = http;
        this.clock = clock;
        this.cache = cacheTtl.isZero() ? null : Caffeine.newBuilder()
                .maximumSize(cacheSize)
                .expireAfter(Expiry.<String, Answer>creating((key, answer) -> lifetime(answer, cacheTtl)))
                .build();
    }

    private Duration lifetime(Answer answer, Duration cacheTtl) {
        if (answer.expiresAt() == null) {
            return cacheTtl;
        }
        Duration left = Duration.between(clock.instant(), answer.expiresAt());
        return left.isNegative() ? Duration.ZERO : (left.compareTo(cacheTtl) < 0 ? left : cacheTtl);
    }

    AccessPrincipal verify(String token, X509Certificate clientCertificate) {
        Answer answer;
        if (cache == null) {
            answer = introspect(token);
        } else {
            String key = hash(token);
            answer = cache.getIfPresent(key);
            if (answer == null) {
                answer = introspect(token);
                cache.put(key, answer);
            }
        }
        return check(answer, clientCertificate);
    }

    private Answer introspect(String token) {
        HttpFetcher.Response response;
        try {
            response = http.postForm(endpoint, "token=" + form(token) + "&token_type_hint=access_token",
                    authorization);
        } catch (IOException e) {
            throw new VerifierUnavailableException("introspection at " + endpoint + ": " + e.getMessage(), e);
        }
        if (response.status() != 200) {
            throw new VerifierUnavailableException("introspection at " + endpoint + ": HTTP " + response.status());
        }
        Map<String, Object> claims;
        try {
            claims = JSONObjectUtils.parse(response.body());
        } catch (ParseException e) {
            throw new VerifierUnavailableException("introspection at " + endpoint + ": not a JSON object", e);
        }
        if (!Boolean.TRUE.equals(claims.get("active"))) {
            return new Answer(null, null);
        }
        return new Answer(claims, instant(claims.get("exp")));
    }

    private AccessPrincipal check(Answer answer, X509Certificate clientCertificate) {
        Map<String, Object> claims = answer.claims();
        if (claims == null) {
            throw new InvalidTokenException("The access token is not active");
        }
        Instant now = clock.instant();
        if (answer.expiresAt() != null && !now.isBefore(answer.expiresAt().plus(clockSkew))) {
            throw new InvalidTokenException("The access token has expired");
        }
        Instant notBefore = instant(claims.get("nbf"));
        if (notBefore != null && now.plus(clockSkew).isBefore(notBefore)) {
            throw new InvalidTokenException("The access token is not valid yet");
        }
        // The audience must name this resource: a token meant for another service is refused even though active.
        Object audience = claims.get("aud");
        boolean forUs = resource.equals(audience) || (audience instanceof List<?> list && list.contains(resource));
        if (!forUs) {
            throw new InvalidTokenException("The access token was not issued for this resource");
        }
        Object issuer = claims.get("iss");
        if (issuer != null && !issuers.contains(issuer)) {
            throw new InvalidTokenException("The access token's issuer is not accepted");
        }
        CertificateBinding.check(claims.get("cnf"), clientCertificate);
        String subject = claims.get("sub") instanceof String sub ? sub : Claims.clientId(claims);
        if (subject == null) {
            throw new InvalidTokenException("The access token names neither a subject nor a client");
        }
        String issuedBy = issuer instanceof String s ? s : issuers.get(0);
        return AccessPrincipal.of(issuedBy, subject, Claims.clientId(claims), Claims.scopes(claims), claims,
                answer.expiresAt());
    }

    private static Instant instant(Object epochSeconds) {
        return epochSeconds instanceof Number n ? Instant.ofEpochSecond(n.longValue()) : null;
    }

    private static String form(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    /** The cache key: a hash, so that the cache holds no usable token. */
    private static String hash(String token) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
