/**
 * An OAuth 2.1 resource server for MCP over HTTP, free of any transport: {@link dev.tern.auth.ResourceServer} answers a
 * request's {@code Authorization} header with an {@link dev.tern.auth.AuthOutcome} (the caller's
 * {@link dev.tern.auth.AccessPrincipal}, or the status and {@code WWW-Authenticate} challenge to send), and publishes
 * its RFC 9728 {@link dev.tern.auth.ProtectedResourceMetadata}. Bearer tokens are checked as JWTs against the
 * authorization server's published keys or by RFC 7662 introspection; other schemes plug in as a
 * {@link dev.tern.auth.TokenVerifier}. {@link dev.tern.auth.RateLimiter} bounds each principal's request rate.
 */
package dev.tern.auth;
