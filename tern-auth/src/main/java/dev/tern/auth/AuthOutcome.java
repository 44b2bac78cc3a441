package dev.tern.auth;

import java.time.Duration;
import java.util.Objects;

/** What {@link ResourceServer} says about a request: who sent it, or what to answer instead of serving it. */
public sealed interface AuthOutcome {

    /** The request carries a valid token (with the scopes asked for, where some were). */
    record Authenticated(AccessPrincipal principal) implements AuthOutcome {
        public Authenticated {
            Objects.requireNonNull(principal, "principal");
        }
    }

    /**
     * The request is refused with {@code status} (400, 401 or 403) and this {@code WWW-Authenticate} header value,
     * which tells the client where the resource's metadata is and which scopes to ask for.
     *
     * @param error the RFC 6750 error code ({@code invalid_request}, {@code invalid_token},
     *        {@code insufficient_scope}), or {@code null} when the request carried no credentials at all
     */
    record Challenge(int status, String wwwAuthenticate, String error) implements AuthOutcome {
        public Challenge {
            Objects.requireNonNull(wwwAuthenticate, "wwwAuthenticate");
        }
    }

    /**
     * The token could not be checked because the authorization server (its keys or its introspection endpoint) did
     * not answer: the client's token may be fine, so this is a 503 with {@code Retry-After}, not a 401 that would
     * make the client throw the token away.
     */
    record Unavailable(Duration retryAfter, String reason) implements AuthOutcome {
        public Unavailable {
            Objects.requireNonNull(retryAfter, "retryAfter");
            Objects.requireNonNull(reason, "reason");
        }
    }
}
