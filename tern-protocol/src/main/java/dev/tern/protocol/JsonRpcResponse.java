package dev.tern.protocol;

/**
 * A response to a request: a result or an error.
 */
public sealed interface JsonRpcResponse extends JsonRpcMessage permits JsonRpcResult, JsonRpcFailure {

    /** The id of the request answered, or {@code null} for an error whose request id could not be read. */
    RequestId id();
}
