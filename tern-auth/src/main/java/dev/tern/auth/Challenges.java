package dev.tern.auth;

import java.util.Collection;

/**
 * The {@code WWW-Authenticate} challenges of RFC 6750 §3 with the MCP spec's {@code resource_metadata} (RFC 9728
 * §5.1): one home for the error codes and their statuses.
 */
final class Challenges {
    static final String INVALID_REQUEST = "invalid_request";
    static final String INVALID_TOKEN = "invalid_token";
    static final String INSUFFICIENT_SCOPE = "insufficient_scope";

    private final String resourceMetadata;

    Challenges(String resourceMetadata) {
        this.resourceMetadata = resourceMetadata;
    }

    /** No credentials at all: RFC 6750 §3.1 says no error code then, only where to go and what to ask for. */
    AuthOutcome.Challenge missing(Collection<String> scopes) {
        return new AuthOutcome.Challenge(401, header(null, scopes, null), null);
    }

    AuthOutcome.Challenge invalidToken(String description, Collection<String> scopes) {
        return new AuthOutcome.Challenge(401, header(INVALID_TOKEN, scopes, description), INVALID_TOKEN);
    }

    AuthOutcome.Challenge insufficientScope(Collection<String> scopes, String description) {
        return new AuthOutcome.Challenge(403, header(INSUFFICIENT_SCOPE, scopes, description), INSUFFICIENT_SCOPE);
    }

    AuthOutcome.Challenge invalidRequest(String description) {
        return new AuthOutcome.Challenge(400, header(INVALID_REQUEST, java.util.List.of(), description),
                INVALID_REQUEST);
    }

    private String header(String error, Collection<String> scopes, String description) {
        StringBuilder header = new StringBuilder(160).append("Bearer ");
        if (error != null) {
            header.append("error=\"").append(error).append("\", ");
        }
        if (!scopes.isEmpty()) {
            header.append("scope=\"").append(String.join(" ", scopes)).append("\", ");
        }
        header.append("resource_metadata=\"").append(resourceMetadata).append('"');
        if (description != null) {
            header.append(", error_description=\"").append(quotable(description)).append('"');
        }
        return header.toString();
    }

    /** RFC 6750 §3: {@code error_description} may hold only %x20-21 / %x23-5B / %x5D-7E. */
    private static String quotable(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            out.append(c >= 0x20 && c <= 0x7E && c != '"' && c != '\\' ? c : '?');
        }
        return out.toString();
    }
}
