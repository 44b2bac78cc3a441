package dev.tern.client.http;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * A complete HTTP response. Times are {@link System#nanoTime()} readings: when the request was written to the
 * connection, when the response head arrived, and when its last byte arrived.
 */
public final class HttpReply {
    private final int status;
    private final HttpHeaders headers;
    private final byte[] body;
    private final List<SseEvent> events;
    private final String protocol;
    private final long sentNanos;
    private final long firstByteNanos;
    private final long completeNanos;

    HttpReply(int status, HttpHeaders headers, byte[] body, List<SseEvent> events, String protocol, long sentNanos,
            long firstByteNanos, long completeNanos) {
        this.status = status;
        this.headers = headers;
        this.body = body;
        this.events = events;
        this.protocol = protocol;
        this.sentNanos = sentNanos;
        this.firstByteNanos = firstByteNanos;
        this.completeNanos = completeNanos;
    }

    public int status() {
        return status;
    }

    /** The first value of a header (case-insensitive name), or {@code null}. */
    public String header(CharSequence name) {
        return headers.get(name);
    }

    /** Every value of a header. */
    public List<String> headers(CharSequence name) {
        return headers.getAll(name);
    }

    /** All headers in arrival order; on HTTP/2 without pseudo-headers. */
    public List<Map.Entry<String, String>> headers() {
        return headers.entries();
    }

    /** The media type without parameters, lower case, or {@code null}. */
    public String contentType() {
        String value = headers.get(HttpHeaderNames.CONTENT_TYPE);
        if (value == null) {
            return null;
        }
        int semicolon = value.indexOf(';');
        return (semicolon < 0 ? value : value.substring(0, semicolon)).strip().toLowerCase(java.util.Locale.ROOT);
    }

    public byte[] body() {
        return body;
    }

    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /** The events of a {@code text/event-stream} reply; empty for other replies. */
    public List<SseEvent> events() {
        return events;
    }

    /** {@code "http/1.1"}, {@code "h2c"} or {@code "h2"}. */
    public String protocol() {
        return protocol;
    }

    public long sentNanos() {
        return sentNanos;
    }

    public long firstByteNanos() {
        return firstByteNanos;
    }

    public long completeNanos() {
        return completeNanos;
    }

    @Override
    public String toString() {
        return "HttpReply[" + protocol + " " + status + ", " + body.length + " bytes]";
    }
}
