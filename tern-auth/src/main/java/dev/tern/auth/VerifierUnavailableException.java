package dev.tern.auth;

/**
 * The token could not be checked: the authorization server's metadata, keys or introspection endpoint did not
 * answer, or answered with an error. Says nothing about the token itself.
 */
public final class VerifierUnavailableException extends RuntimeException {
    public VerifierUnavailableException(String message) {
        super(message);
    }

    public VerifierUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
