package dev.tern.server;

import java.net.URI;
import java.util.Map;
import java.util.Set;

/**
 * Who sent a request, as the transport's authentication found it (over HTTP, the principal of a verified OAuth access
 * token): what a handler may know about its caller. The caller's token is not part of it, so that nothing a handler
 * is given can be passed on to another service; {@link #downstreamToken} is the way to a token for one.
 */
public interface Caller {
    /** The caller's name, unique across authorization servers: what sessions are bound to. */
    String name();

    /** The scopes the caller's token grants. */
    Set<String> scopes();

    /** Every claim of the caller's token, as JSON values (strings, numbers, booleans, lists and maps). */
    Map<String, Object> claims();

    /**
     * A token for a downstream service ({@code audience}) on behalf of this caller, from the authorization server's
     * token exchange: the caller's own token goes to the authorization server only.
     *
     * @throws IllegalStateException when the server has no token exchange configured
     */
    String downstreamToken(URI audience, Set<String> scopes);
}
