package dev.tern.auth;

import java.security.cert.X509Certificate;

/**
 * Checks the credentials of one {@code Authorization} scheme and says who they belong to. The built-in Bearer
 * verifier checks JWTs and introspects opaque tokens; {@link ResourceServer.Builder#verifier} plugs in another (a
 * different token format, or another scheme).
 */
@FunctionalInterface
public interface TokenVerifier {
    /**
     * The principal {@code credentials} stand for. May block (fetching keys, introspecting), so a transport calls it
     * off its event loop, or first asks a cache.
     *
     * @param credentials what follows the scheme name in the {@code Authorization} header
     * @param clientCertificate the TLS client certificate the connection presented, or {@code null}; a token bound
     *        to a certificate (RFC 8705) is accepted only with it
     * @throws InvalidTokenException when the credentials must be refused
     * @throws VerifierUnavailableException when they could not be checked right now
     */
    AccessPrincipal verify(String credentials, X509Certificate clientCertificate);
}
