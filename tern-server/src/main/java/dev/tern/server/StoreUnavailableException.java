package dev.tern.server;

/**
 * A shared store ({@link SessionStore}, {@link EventStore}) cannot answer now: it is down, slow or refusing. What
 * needed it fails fast and the client may retry shortly.
 */
public final class StoreUnavailableException extends RuntimeException {

    public StoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }

    public StoreUnavailableException(String message) {
        super(message);
    }
}
