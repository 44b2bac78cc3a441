package dev.tern.protocol;

import java.util.List;

/**
 * Reads and writes JSON-RPC messages in one {@link WireFormat}. Every codec is as strict as {@link JsonRpcCodec}:
 * the same limits, duplicate keys refused, and every rejection a specific JSON-RPC error, never an exception.
 * Thread-safe.
 */
public interface MessageCodec {
    WireFormat format();

    Decoded decode(byte[] bytes, int offset, int length);

    byte[] encode(JsonRpcMessage message);

    byte[] encodeBatch(List<? extends JsonRpcMessage> messages);

    /** The codec of {@code format} with the limits and rules of {@code json}; {@code json} itself for JSON. */
    static MessageCodec of(WireFormat format, JsonRpcCodec json) {
        return switch (format) {
            case JSON -> json;
            case CBOR -> new CborCodec(json);
            case MSGPACK -> new MsgpackCodec(json);
        };
    }
}
