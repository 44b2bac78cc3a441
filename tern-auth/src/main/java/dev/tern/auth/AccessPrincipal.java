package dev.tern.auth;

import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The caller a verified token speaks for: what a handler may see. The token itself is not part of it, so that
 * nothing a handler is given can be passed on to another service; {@link ResourceServer#exchange} is the way to a
 * token for a downstream service.
 */
public final class AccessPrincipal {
    private final String issuer;
    private final String subject;
    private final String clientId;
    private final Set<String> scopes;
    private final Map<String, Object> claims;
    private final Instant expiresAt;
    // The inbound token, kept for a token exchange only and never handed out.
    private final String token;

    private AccessPrincipal(String issuer, String subject, String clientId, Set<String> scopes,
            Map<String, Object> claims, Instant expiresAt, String token) {
        this.issuer = Objects.requireNonNull(issuer, "issuer");
        this.subject = Objects.requireNonNull(subject, "subject");
        this.clientId = clientId;
        this.scopes = Set.copyOf(scopes);
        this.claims = Map.copyOf(claims);
        this.expiresAt = expiresAt;
        this.token = token;
    }

    /**
     * A principal as a {@link TokenVerifier} found it.
     *
     * @param clientId the OAuth client the token was issued to, or {@code null} if the token does not say
     * @param claims every claim of the token (or of the introspection answer), for the application to read
     * @param expiresAt when the token expires, or {@code null} if it does not say
     */
    public static AccessPrincipal of(String issuer, String subject, String clientId, Set<String> scopes,
            Map<String, Object> claims, Instant expiresAt) {
        return new AccessPrincipal(issuer, subject, clientId, scopes, claims, expiresAt, null);
    }

    AccessPrincipal withToken(String inboundToken) {
        return new AccessPrincipal(issuer, subject, clientId, scopes, claims, expiresAt, inboundToken);
    }

    String token() {
        return token;
    }

    /**
     * The principal's name, unique across authorization servers (the issuer, a space, the subject): what a
     * transport binds sessions and counts a client's share by.
     */
    public String name() {
        return issuer + " " + subject;
    }

    /** The authorization server that issued the token. */
    public String issuer() {
        return issuer;
    }

    /** The token's {@code sub}: the user, or the client acting on its own behalf. */
    public String subject() {
        return subject;
    }

    /** The OAuth client the token was issued to ({@code client_id} or {@code azp}), or {@code null}. */
    public String clientId() {
        return clientId;
    }

    /** The scopes the token grants. */
    public Set<String> scopes() {
        return scopes;
    }

    /** Whether the token grants every one of {@code required}. */
    public boolean hasScopes(Collection<String> required) {
        return scopes.containsAll(required);
    }

    /** Every claim of the token, as JSON values (strings, numbers, booleans, lists and maps). */
    public Map<String, Object> claims() {
        return claims;
    }

    /** When the token expires, or {@code null} if it does not say. */
    public Instant expiresAt() {
        return expiresAt;
    }

    @Override
    public String toString() {
        return "AccessPrincipal[" + name() + ", client " + clientId + ", scopes " + scopes + "]";
    }
}
