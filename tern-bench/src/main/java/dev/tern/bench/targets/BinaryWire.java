package dev.tern.bench.targets;

import java.nio.charset.StandardCharsets;

import dev.tern.protocol.Decoded;
import dev.tern.protocol.JsonRpcCodec;
import dev.tern.protocol.MessageCodec;
import dev.tern.protocol.WireFormat;

/**
 * The JSON-RPC messages of a benchmark in a binary {@link WireFormat} (CBOR, MessagePack): the targets build and read
 * JSON, and this turns a request into the format before it is sent and a reply back into JSON once it arrives, with
 * Tern's own codecs. What that costs is the load generator's, not the server's.
 */
final class BinaryWire {
    private static final JsonRpcCodec JSON = JsonRpcCodec.withDefaults();

    private final MessageCodec codec;

    BinaryWire(WireFormat format) {
        if (!format.binary()) {
            throw new IllegalArgumentException("format: " + format + " (expected: a binary one)");
        }
        this.codec = MessageCodec.of(format, JSON);
    }

    WireFormat format() {
        return codec.format();
    }

    /** A JSON-RPC message written as JSON, in the binary format. */
    byte[] encode(String json) {
        Decoded decoded = JSON.decode(json.getBytes(StandardCharsets.UTF_8));
        if (!(decoded instanceof Decoded.Single single)) {
            throw new IllegalArgumentException("not one JSON-RPC message: " + json);
        }
        return codec.encode(single.message());
    }

    /** A message in the binary format, as JSON; a malformed one as the failure it decodes to, or null. */
    byte[] toJson(byte[] message) {
        return switch (codec.decode(message, 0, message.length)) {
            case Decoded.Single single -> JSON.encode(single.message());
            case Decoded.Invalid invalid -> JSON.encode(invalid.failure());
            default -> null;
        };
    }
}
