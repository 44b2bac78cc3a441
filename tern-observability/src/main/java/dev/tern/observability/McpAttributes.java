package dev.tern.observability;

import static io.opentelemetry.api.common.AttributeKey.stringKey;

import java.util.List;

import io.opentelemetry.api.common.AttributeKey;

/** The attribute keys, metric names and bucket boundaries of the OpenTelemetry semantic conventions for MCP. */
final class McpAttributes {
    static final AttributeKey<String> METHOD = stringKey("mcp.method.name");
    static final AttributeKey<String> PROTOCOL_VERSION = stringKey("mcp.protocol.version");
    static final AttributeKey<String> SESSION_ID = stringKey("mcp.session.id");
    static final AttributeKey<String> RESOURCE_URI = stringKey("mcp.resource.uri");
    static final AttributeKey<String> TOOL_NAME = stringKey("gen_ai.tool.name");
    static final AttributeKey<String> PROMPT_NAME = stringKey("gen_ai.prompt.name");
    static final AttributeKey<String> OPERATION_NAME = stringKey("gen_ai.operation.name");
    static final AttributeKey<String> REQUEST_ID = stringKey("jsonrpc.request.id");
    static final AttributeKey<String> STATUS_CODE = stringKey("rpc.response.status_code");
    static final AttributeKey<String> ERROR_TYPE = stringKey("error.type");
    static final AttributeKey<String> NETWORK_TRANSPORT = stringKey("network.transport");
    static final AttributeKey<String> NETWORK_PROTOCOL_NAME = stringKey("network.protocol.name");
    static final AttributeKey<String> NETWORK_PROTOCOL_VERSION = stringKey("network.protocol.version");
    static final AttributeKey<String> CLIENT_ADDRESS = stringKey("client.address");
    static final AttributeKey<String> SERVER_ADDRESS = stringKey("server.address");
    /** Not in the conventions: which era of the protocol served the request. */
    static final AttributeKey<String> ERA = stringKey("tern.mcp.era");
    /** Not in the conventions, which say nothing of tasks: the id of the task a span runs. */
    static final AttributeKey<String> TASK_ID = stringKey("tern.mcp.task.id");
    /** Not in the conventions: the task's terminal status ({@code completed}, {@code failed}, {@code cancelled}). */
    static final AttributeKey<String> TASK_STATUS = stringKey("tern.mcp.task.status");
    /** What the name of a task's span starts with, before the name of the request that created it. */
    static final String TASK_SPAN_PREFIX = "task ";

    static final String EXECUTE_TOOL = "execute_tool";
    /** The {@code error.type} of a request cancelled before its response: it got none. */
    static final String CANCELLED = "cancelled";
    static final String TOOL_ERROR = "tool_error";
    static final String TOOLS_CALL = "tools/call";
    static final String PROMPTS_GET = "prompts/get";

    static final String SERVER_OPERATION_DURATION = "mcp.server.operation.duration";
    static final String SERVER_SESSION_DURATION = "mcp.server.session.duration";
    static final String CLIENT_OPERATION_DURATION = "mcp.client.operation.duration";
    static final String CLIENT_SESSION_DURATION = "mcp.client.session.duration";

    /** The buckets the conventions give all four MCP duration histograms, in seconds. */
    static final List<Double> DURATION_BUCKETS =
            List.of(0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0);

    /** The protocol versions whose attribute sets are built once; another version's are built per call. */
    static final List<String> KNOWN_VERSIONS =
            List.of("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28");

    private McpAttributes() {
    }

    static int versionIndex(String version) {
        // The server passes its own constants, the same interned literals: most calls end here without comparing text.
        for (int i = 0; i < KNOWN_VERSIONS.size(); i++) {
            if (KNOWN_VERSIONS.get(i) == version) {
                return i;
            }
        }
        for (int i = 0; i < KNOWN_VERSIONS.size(); i++) {
            if (KNOWN_VERSIONS.get(i).equals(version)) {
                return i;
            }
        }
        return -1;
    }

    /** JSON-RPC error codes as {@code error.type} values, without a new string for the codes MCP servers send. */
    static String code(int code) {
        return switch (code) {
            case -32700 -> "-32700";
            case -32600 -> "-32600";
            case -32601 -> "-32601";
            case -32602 -> "-32602";
            case -32603 -> "-32603";
            case -32002 -> "-32002";
            case -32001 -> "-32001";
            case -32000 -> "-32000";
            default -> Integer.toString(code);
        };
    }
}
