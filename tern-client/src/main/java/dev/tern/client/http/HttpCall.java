package dev.tern.client.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * One HTTP request to send with {@link HttpClientEngine#send}: method, path, headers, body, and optionally a listener
 * for the events of a {@code text/event-stream} reply as they arrive. Not thread-safe while being built; once built
 * it is only read, so the same call may be sent many times, concurrently too (a load generator sending one request
 * over and over builds it once). Do not change it after sending.
 */
public final class HttpCall {
    private static final byte[] NO_BODY = new byte[0];

    private final String method;
    private final String path;
    private final byte[] body;
    private final List<CharSequence> headers = new ArrayList<>(8);
    private Consumer<SseEvent> eventListener;

    private HttpCall(String method, String path, byte[] body) {
        this.method = Objects.requireNonNull(method, "method");
        this.path = path;
        this.body = body == null ? NO_BODY : body;
    }

    /** A GET of {@code path} (relative to the engine's base URI when it does not start with '/'; null: the base path). */
    public static HttpCall get(String path) {
        return new HttpCall("GET", path, null);
    }

    /** A DELETE of {@code path}. */
    public static HttpCall delete(String path) {
        return new HttpCall("DELETE", path, null);
    }

    /** A POST of {@code body} with the given content type to {@code path}. */
    public static HttpCall post(String path, String contentType, byte[] body) {
        return new HttpCall("POST", path, Objects.requireNonNull(body, "body")).header("content-type", contentType);
    }

    /** A request with any method; {@code body} may be null. */
    public static HttpCall of(String method, String path, byte[] body) {
        return new HttpCall(method, path, body);
    }

    /** Adds a header. Names are sent in lower case on HTTP/2. */
    public HttpCall header(CharSequence name, CharSequence value) {
        headers.add(Objects.requireNonNull(name, "name"));
        headers.add(Objects.requireNonNull(value, "value"));
        return this;
    }

    /**
     * Receives each event of a {@code text/event-stream} reply as soon as it is complete, on an I/O thread, before
     * the reply's future completes. The reply still lists every event.
     */
    public HttpCall onEvent(Consumer<SseEvent> listener) {
        this.eventListener = listener;
        return this;
    }

    public String method() {
        return method;
    }

    /** The path as given, or null for the engine's base path. */
    public String path() {
        return path;
    }

    public byte[] body() {
        return body;
    }

    /** Header names and values, alternating. */
    List<CharSequence> headerList() {
        return headers;
    }

    Consumer<SseEvent> eventListener() {
        return eventListener;
    }
}
