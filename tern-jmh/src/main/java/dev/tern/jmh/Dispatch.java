package dev.tern.jmh;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.tern.examples.UserDirectoryServer;
import dev.tern.protocol.CodecLimits;
import dev.tern.protocol.Decoded;
import dev.tern.protocol.JsonRpcCodec;
import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.JsonRpcResponse;
import dev.tern.protocol.RequestId;
import dev.tern.server.McpServer;
import dev.tern.server.Outbound;
import dev.tern.server.ServerChannel;

/**
 * Drives a server as a transport does: decoded bytes in, the encoded response out, waiting for it. An inline dispatch
 * lets the server run non-blocking handlers on the calling thread, as the HTTP and stdio transports do.
 */
final class Dispatch implements Outbound {
    private final JsonRpcCodec codec;
    private final boolean inline;
    private volatile CompletableFuture<byte[]> pending;

    Dispatch(JsonRpcCodec codec) {
        this(codec, false);
    }

    Dispatch(JsonRpcCodec codec, boolean inline) {
        this.codec = codec;
        this.inline = inline;
    }

    @Override
    public boolean runsNonBlockingHandlersInline() {
        return inline;
    }

    /** Sends one request on {@code channel} and waits for its encoded response. */
    byte[] call(ServerChannel channel, byte[] request) {
        CompletableFuture<byte[]> reply = new CompletableFuture<>();
        pending = reply;
        channel.receive(codec.decode(request));
        try {
            return reply.get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("no response", e);
        }
    }

    /** Serves one 2026-07-28 request on its own, as the HTTP transport serves a POST, and waits for its encoded response. */
    byte[] serve(McpServer server, byte[] request) {
        CompletableFuture<byte[]> reply = new CompletableFuture<>();
        pending = reply;
        if (!(codec.decode(request) instanceof Decoded.Single single) || !(single.message() instanceof JsonRpcRequest r)) {
            throw new IllegalArgumentException("not a request");
        }
        server.serve(r, this);
        try {
            return reply.get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("no response", e);
        }
    }

    @Override
    public void send(JsonRpcMessage message, RequestId relatedTo) {
        if (message instanceof JsonRpcResponse) {
            pending.complete(codec.encode(message));
        }
    }

    /** The bytes of a modern get_user response, for benchmarks that start from one. */
    static byte[] modernReply() {
        try (McpServer server = UserDirectoryServer.create()) {
            Dispatch dispatch = new Dispatch(new JsonRpcCodec(CodecLimits.DEFAULT));
            ServerChannel channel = server.connect(dispatch);
            return dispatch.call(channel, Messages.MODERN_GET_USER);
        }
    }
}
