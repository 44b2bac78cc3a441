package dev.tern.protocol;

/**
 * One JSON-RPC 2.0 message: a request, a notification or a response.
 */
public sealed interface JsonRpcMessage permits JsonRpcRequest, JsonRpcNotification, JsonRpcResponse {
}
