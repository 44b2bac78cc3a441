package dev.tern.client.http;

/** How an {@link HttpClientEngine} talks HTTP to its server. */
public enum HttpProtocol {
    /** HTTP/1.1 with keep-alive: one request at a time per pooled connection. Over TLS when the URI is https. */
    HTTP_1_1,
    /** HTTP/2 in cleartext with prior knowledge: many concurrent streams per connection. */
    H2C,
    /**
     * HTTP/2 over TLS, chosen by ALPN; a server that only offers http/1.1 gets HTTP/1.1 on the same connection.
     */
    H2
}
