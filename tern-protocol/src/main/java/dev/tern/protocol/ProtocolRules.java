package dev.tern.protocol;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The rules every transport applies alike: which era a request belongs to, and the errors that refuse a request for
 * breaking the protocol's order (a second {@code initialize}, an id already in flight, a batch where none is allowed,
 * an unknown revision).
 */
public final class ProtocolRules {
    public static final String INITIALIZE = "initialize";

    private ProtocolRules() {
    }

    /** The revision a 2026-07-28 request names in its {@code _meta}, or {@code null} when it names none (legacy). */
    public static JsonNode modernVersion(JsonRpcRequest request) {
        ObjectNode params = request.params();
        if (params == null) {
            return null;
        }
        JsonNode meta = params.get(McpMeta.KEY);
        return meta == null ? null : meta.get(McpMeta.PROTOCOL_VERSION);
    }

    /** Whether a request is of the 2026-07-28 era: it names its revision in {@code _meta}. */
    public static boolean isModern(JsonRpcRequest request) {
        return modernVersion(request) != null;
    }

    /** Whether a request opens a legacy session. */
    public static boolean opensSession(JsonRpcRequest request) {
        return request.method().equals(INITIALIZE) && !isModern(request);
    }

    /** -32022 with {@code data.supported} (every revision this server speaks) and {@code data.requested}. */
    public static McpException unsupportedVersion(String requested) {
        ObjectNode data = Json.object();
        ArrayNode supported = data.putArray("supported");
        ProtocolVersion.supportedIds().forEach(supported::add);
        data.put("requested", requested);
        return new McpException(ErrorCodes.UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version: " + requested
                + " (supported: " + ProtocolVersion.supportedIds() + ")", data);
    }

    public static McpException alreadyInitialized() {
        return McpException.invalidRequest("Invalid request: the session is already initialized");
    }

    public static McpException idInUse(RequestId id) {
        return McpException.invalidRequest("Invalid request: id " + id + " is already in use by a request in flight");
    }

    public static McpException batchRefused() {
        return McpException.invalidRequest("Invalid request: JSON-RPC batches are only accepted in a 2025-03-26 session");
    }

    public static McpException initializeInBatch() {
        return McpException.invalidRequest("Invalid request: initialize must not be part of a batch");
    }

    public static McpException nestedBatch() {
        return McpException.invalidRequest("Invalid request: nested batch");
    }

    public static McpException notInitialized() {
        return McpException.invalidRequest("Server not initialized: send initialize first, or a 2026-07-28 request "
                + "carrying _meta \"" + McpMeta.PROTOCOL_VERSION + "\"");
    }
}
