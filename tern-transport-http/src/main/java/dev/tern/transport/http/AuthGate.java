package dev.tern.transport.http;

import java.nio.ByteBuffer;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;

import dev.tern.auth.AccessPrincipal;
import dev.tern.auth.AuthOutcome;
import dev.tern.auth.ProtectedResourceMetadata;
import dev.tern.auth.RateLimiter;
import dev.tern.auth.ResourceServer;
import dev.tern.protocol.ErrorCodes;
import dev.tern.protocol.RequestId;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * The transport's side of OAuth: asks the {@link ResourceServer} about each protected request before it is
 * dispatched, answers its challenges (400, 401, 403, 503) and the per-principal rate limit (429), serves the RFC 9728
 * metadata, and leaves the authenticated principal on the exchange. A token the resource server remembers is
 * accepted on the event loop; any other is verified on a virtual thread, since that may fetch keys or introspect.
 */
final class AuthGate {
    private final ResourceServer resourceServer;
    private final RateLimiter rateLimiter;
    private final McpEndpoint errors;
    private final List<String> metadataPaths;
    private final byte[] metadata;

    AuthGate(ResourceServer resourceServer, RateLimiter rateLimiter, McpEndpoint errors) {
        this.resourceServer = resourceServer;
        this.rateLimiter = rateLimiter;
        this.errors = errors;
        ProtectedResourceMetadata document = resourceServer.metadata();
        this.metadataPaths = document.paths();
        ByteBuffer json = document.json();
        this.metadata = new byte[json.remaining()];
        json.get(metadata);
    }

    ResourceServer resourceServer() {
        return resourceServer;
    }

    /** Serves the metadata document if {@code path} is one of its paths; it needs no token. */
    boolean servesMetadata(String path, HttpRequest request, HttpExchange exchange) {
        if (!metadataPaths.contains(path)) {
            return false;
        }
        // Browser-based clients read it from another origin.
        exchange.header(HttpHeaderNames.ACCESS_CONTROL_ALLOW_ORIGIN, "*")
                .header(HttpHeaderNames.CACHE_CONTROL, "max-age=300");
        exchange.respond(HttpResponseStatus.OK, ProtectedResourceMetadata.CONTENT_TYPE, metadata);
        return true;
    }

    /**
     * Admits {@code request} once its token is checked: refuses it at once when its answer is known (no token, a
     * token in the query, a remembered token), and otherwise reads its body and verifies the token off the event
     * loop. {@code next} serves the request as an authenticated one.
     */
    RequestDispatcher.BodyReader check(HttpRequest request, HttpExchange exchange, Next next) {
        String uri = request.uri();
        int query = uri.indexOf('?');
        if (query >= 0) {
            int end = uri.indexOf('#', query);
            var refused = resourceServer.refuseQueryToken(uri.substring(query + 1, end < 0 ? uri.length() : end));
            if (refused.isPresent()) {
                challenge(exchange, refused.get());
                return null;
            }
        }
        String authorization = request.headers().get(HttpHeaderNames.AUTHORIZATION);
        X509Certificate certificate = clientCertificate(exchange.channel());
        AuthOutcome known = resourceServer.authenticateWithoutBlocking(authorization, certificate).orElse(null);
        if (known != null) {
            return admit(known, request, exchange, next) ? next.dispatch(request, exchange) : null;
        }
        return (head, body, ex) -> Thread.startVirtualThread(() -> {
            AuthOutcome outcome;
            try {
                outcome = resourceServer.authenticate(authorization, certificate);
            } catch (RuntimeException e) { // a verifier's own failure: the token could not be checked
                outcome = new AuthOutcome.Unavailable(java.time.Duration.ofSeconds(1), e.toString());
            }
            AuthOutcome checked = outcome;
            ex.executor().execute(() -> {
                if (admit(checked, head, ex, next)) {
                    RequestDispatcher.BodyReader reader = next.dispatch(head, ex);
                    if (reader != null) {
                        reader.read(head, body, ex);
                    }
                }
            });
        });
    }

    /** Serves the request as an authenticated one: what reads its body, or {@code null} once it is answered. */
    @FunctionalInterface
    interface Next {
        RequestDispatcher.BodyReader dispatch(HttpRequest request, HttpExchange exchange);
    }

    /** Whether the request goes on; otherwise it has been answered. */
    private boolean admit(AuthOutcome outcome, HttpRequest request, HttpExchange exchange, Next next) {
        switch (outcome) {
            case AuthOutcome.Authenticated authenticated -> {
                AccessPrincipal principal = authenticated.principal();
                long wait = rateLimiter == null ? 0 : rateLimiter.acquire(principal.name());
                if (wait > 0) {
                    exchange.header(HttpHeaderNames.RETRY_AFTER, wait);
                    error(exchange, HttpResponseStatus.TOO_MANY_REQUESTS, null,
                            "Too many requests: this principal's rate limit is reached; retry after " + wait + " s");
                    return false;
                }
                exchange.principal(principal);
                return true;
            }
            case AuthOutcome.Challenge challenge -> {
                challenge(exchange, challenge);
                return false;
            }
            case AuthOutcome.Unavailable unavailable -> {
                exchange.header(HttpHeaderNames.RETRY_AFTER, Math.max(1, unavailable.retryAfter().toSeconds()));
                error(exchange, HttpResponseStatus.SERVICE_UNAVAILABLE, null,
                        "Service unavailable: the token could not be checked (" + unavailable.reason() + ")");
                return false;
            }
        }
    }

    /**
     * Whether the principal of {@code exchange} holds {@code scopes}; otherwise answers 403 {@code insufficient_scope}
     * naming the scopes to ask for. Always true for an exchange no token was checked for.
     */
    boolean permits(HttpExchange exchange, RequestId id, Collection<String> scopes) {
        AccessPrincipal principal = exchange.principal();
        if (principal == null || scopes.isEmpty()) {
            return true;
        }
        AuthOutcome.Challenge challenge = lacking(resourceServer, principal, scopes);
        if (challenge != null) {
            exchange.header(HttpHeaderNames.WWW_AUTHENTICATE, challenge.wwwAuthenticate());
            error(exchange, HttpResponseStatus.valueOf(challenge.status()), id, "Forbidden: the token lacks a scope "
                    + "this needs: " + String.join(" ", scopes));
            return false;
        }
        return true;
    }

    /** The 403 challenge for a principal without every one of {@code scopes}, or {@code null} when it has them. */
    static AuthOutcome.Challenge lacking(ResourceServer resourceServer, AccessPrincipal principal,
            Collection<String> scopes) {
        if (principal == null || scopes.isEmpty()) {
            return null;
        }
        return resourceServer.authorize(principal, scopes) instanceof AuthOutcome.Challenge challenge ? challenge
                : null;
    }

    private void challenge(HttpExchange exchange, AuthOutcome.Challenge challenge) {
        exchange.header(HttpHeaderNames.WWW_AUTHENTICATE, challenge.wwwAuthenticate());
        HttpResponseStatus status = HttpResponseStatus.valueOf(challenge.status());
        error(exchange, status, null, status.reasonPhrase() + ": "
                + (challenge.error() == null ? "an access token is required" : challenge.error()));
    }

    private void error(HttpExchange exchange, HttpResponseStatus status, RequestId id, String message) {
        errors.error(exchange, status, id, ErrorCodes.INVALID_REQUEST, message);
    }

    /** The verified client certificate of the connection (the parent's, for an HTTP/2 stream), or {@code null}. */
    static X509Certificate clientCertificate(Channel channel) {
        List<X509Certificate> chain = TlsPeer.certificates(channel);
        return chain.isEmpty() ? null : chain.get(0);
    }
}
