package dev.tern.client.http;

/** A request that got no complete HTTP response: connect failure, closed connection, timeout, oversized reply. */
public class HttpClientException extends RuntimeException {

    public HttpClientException(String message) {
        super(message);
    }

    public HttpClientException(String message, Throwable cause) {
        super(message, cause);
    }
}
