/**
 * A small asynchronous HTTP client on Netty for load generation and for the MCP client: one
 * {@link dev.tern.client.http.HttpClientEngine} per server, HTTP/1.1 keep-alive pooling, HTTP/2 multiplexing (h2c with
 * prior knowledge, h2 by ALPN), TLS with a shared session cache ({@link dev.tern.client.http.ClientTls}), incremental
 * server-sent events, and per-request timing in {@link System#nanoTime()} units.
 */
package dev.tern.client.http;
