package dev.tern.transport.http;

/**
 * Tells who sent a request, as the application's authentication decides (for example the subject of a verified bearer
 * token). A legacy session, and a stream of the 2024-11-05 transport, is bound to the principal that opened it: a
 * request carrying its id on behalf of anyone else is answered 404, as if the session did not exist. A session id
 * is never a credential. The principal is also the client whose share of the sessions, listens and SSE connections
 * a request takes ({@link HttpOptions.Sessions.Builder#maxPerClient}); anonymous requests are counted by the
 * address they come from.
 */
@FunctionalInterface
public interface PrincipalResolver {
    /** Everyone is the same anonymous principal: sessions are bound to nothing but their id. */
    PrincipalResolver ANONYMOUS = headers -> null;

    /** The principal's name, or {@code null} for an anonymous request. Called on an event loop: do not block. */
    String principal(Headers headers);

    /** The request headers, by case-insensitive name. */
    @FunctionalInterface
    interface Headers {
        /** The first value of the header, or {@code null}. */
        String get(String name);
    }
}
