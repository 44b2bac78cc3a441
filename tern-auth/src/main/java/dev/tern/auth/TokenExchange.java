package dev.tern.auth;

import java.net.URI;
import java.util.Set;

/**
 * Gets a token for a downstream service in exchange for the caller's token (RFC 8693 token exchange, or any scheme
 * the deployment's authorization server offers). The inbound token is only ever sent to the authorization server,
 * never to the downstream service: an MCP server must not pass tokens through.
 */
@FunctionalInterface
public interface TokenExchange {
    /**
     * A token for {@code audience} with {@code scopes}, on behalf of {@code principal}.
     *
     * @param subjectToken the caller's token, to present to the authorization server as the subject token
     * @throws VerifierUnavailableException when the authorization server could not be reached
     */
    DownstreamToken exchange(String subjectToken, AccessPrincipal principal, URI audience, Set<String> scopes);

    /** A token for a downstream service, and when it expires ({@code null} if unknown). */
    record DownstreamToken(String accessToken, String tokenType, java.time.Instant expiresAt) {
        public DownstreamToken {
            java.util.Objects.requireNonNull(accessToken, "accessToken");
            java.util.Objects.requireNonNull(tokenType, "tokenType");
        }

        @Override
        public String toString() {
            return "DownstreamToken[" + tokenType + ", expires " + expiresAt + "]";
        }
    }
}
