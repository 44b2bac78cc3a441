package dev.tern.auth;

/**
 * A token that must not be accepted: malformed, expired, not yet valid, badly signed, from an unknown issuer, for
 * another audience, revoked, or bound to another client certificate. The message becomes the challenge's
 * {@code error_description}, so it says what is wrong without echoing the token.
 */
public final class InvalidTokenException extends RuntimeException {
    public InvalidTokenException(String message) {
        super(message);
    }

    public InvalidTokenException(String message, Throwable cause) {
        super(message, cause);
    }
}
