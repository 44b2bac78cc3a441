package dev.tern.protocol;

/** The {@code _meta} member and the keys MCP defines in it. */
public final class McpMeta {
    /** The member of params and results that carries the keys below. */
    public static final String KEY = "_meta";
    /** 2026-07-28: the revision a request is made in; its presence marks a request of that era. */
    public static final String PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
    /** 2026-07-28: the client's capabilities, sent with every request. */
    public static final String CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
    /** 2026-07-28: the client's name and version, sent with every request. */
    public static final String CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
    /** 2026-07-28: the least severe log message the client wants for this request. */
    public static final String LOG_LEVEL = "io.modelcontextprotocol/logLevel";
    /** 2026-07-28: the server's name and version, on every result. */
    public static final String SERVER_INFO = "io.modelcontextprotocol/serverInfo";
    /** 2026-07-28: the {@code subscriptions/listen} request a notification belongs to. */
    public static final String SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
    /** The task a message belongs to. */
    public static final String RELATED_TASK = "io.modelcontextprotocol/related-task";
    /** The name of the tasks extension. */
    public static final String TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
    /** The W3C trace context of a request: keys here, and HTTP headers of the same names. */
    public static final String TRACEPARENT = "traceparent";
    public static final String TRACESTATE = "tracestate";
    public static final String BAGGAGE = "baggage";
    /** The token a client asks progress notifications under. */
    public static final String PROGRESS_TOKEN = "progressToken";

    private McpMeta() {
    }
}
