package dev.tern.transport.http;

import java.net.URI;
import java.util.Map;
import java.util.Set;

import dev.tern.auth.AccessPrincipal;
import dev.tern.auth.ResourceServer;
import dev.tern.server.Caller;

/** A request's authenticated principal as handlers see it: no token, and the token exchange as the way downstream. */
record AuthCaller(AccessPrincipal principal, ResourceServer resourceServer) implements Caller {

    /** The caller of an exchange, or {@code null} when no token was checked for it. */
    static Caller of(HttpExchange exchange, AuthGate auth) {
        AccessPrincipal principal = exchange.principal();
        return principal == null || auth == null ? null : new AuthCaller(principal, auth.resourceServer());
    }

    @Override
    public String name() {
        return principal.name();
    }

    @Override
    public Set<String> scopes() {
        return principal.scopes();
    }

    @Override
    public Map<String, Object> claims() {
        return principal.claims();
    }

    @Override
    public String downstreamToken(URI audience, Set<String> scopes) {
        return resourceServer.exchange(principal, audience, scopes).accessToken();
    }

    @Override
    public String toString() {
        return principal.toString();
    }
}
