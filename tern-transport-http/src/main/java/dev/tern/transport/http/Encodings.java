package dev.tern.transport.http;

import dev.tern.protocol.Decoded;
import dev.tern.protocol.JsonRpcCodec;
import dev.tern.protocol.MessageCodec;
import dev.tern.protocol.WireFormat;

import io.netty.handler.codec.http.HttpHeaders;

/**
 * The binary encodings of MCP POST bodies: a body whose {@code Content-Type} is {@code application/cbor} or
 * {@code application/vnd.msgpack} is read in that format, and its answer is written in it when the request's
 * {@code Accept} lists it too. Everything else (JSON bodies, SSE streams, refusals before the body is read, legacy
 * sessions' answers) is JSON, which stays the only encoding a client that does not ask is ever sent.
 */
final class Encodings {
    private final MessageCodec cbor;
    private final MessageCodec msgpack;

    Encodings(JsonRpcCodec json) {
        this.cbor = MessageCodec.of(WireFormat.CBOR, json);
        this.msgpack = MessageCodec.of(WireFormat.MSGPACK, json);
    }

    /** Whether a body of this {@code Content-Type} can be read at the MCP endpoint. */
    static boolean readable(String contentType) {
        return RequestDispatcher.isJson(contentType) || WireFormat.ofMediaType(contentType) != null;
    }

    /**
     * Reads a body that is not JSON, and sets on {@code exchange} the codec its answers are written in (when the
     * client accepts that format).
     */
    Decoded decode(HttpHeaders headers, String contentType, byte[] body, HttpExchange exchange) {
        MessageCodec codec = WireFormat.ofMediaType(contentType) == WireFormat.CBOR ? cbor : msgpack;
        if (McpEndpoint.accepts(headers, codec.format().mediaType())) {
            exchange.replyCodec(codec);
        }
        return codec.decode(body, 0, body.length);
    }
}
