package dev.tern.testing;

import java.util.List;
import java.util.Map;

import tools.jackson.databind.JsonNode;

/**
 * Checks a message a server wrote against the official schema of its revision: the envelope, and for results the
 * concrete result type of the method answered (the response unions of 2026-07-28 accept almost anything).
 */
public final class WireValidator {
    private static final Map<String, String> RESULTS = Map.ofEntries(
            Map.entry("initialize", "InitializeResult"),
            Map.entry("ping", "EmptyResult"),
            Map.entry("server/discover", "DiscoverResult"),
            Map.entry("tools/list", "ListToolsResult"),
            Map.entry("tools/call", "CallToolResult"),
            Map.entry("resources/list", "ListResourcesResult"),
            Map.entry("resources/templates/list", "ListResourceTemplatesResult"),
            Map.entry("resources/read", "ReadResourceResult"),
            Map.entry("resources/subscribe", "EmptyResult"),
            Map.entry("resources/unsubscribe", "EmptyResult"),
            Map.entry("prompts/list", "ListPromptsResult"),
            Map.entry("prompts/get", "GetPromptResult"),
            Map.entry("completion/complete", "CompleteResult"),
            Map.entry("logging/setLevel", "EmptyResult"),
            Map.entry("subscriptions/listen", "SubscriptionsListenResult"),
            Map.entry("tasks/get", "GetTaskResult"),
            Map.entry("tasks/list", "ListTasksResult"),
            Map.entry("tasks/cancel", "CancelTaskResult"));

    private static final Map<String, String> NOTIFICATIONS = Map.ofEntries(
            Map.entry("notifications/progress", "ProgressNotification"),
            Map.entry("notifications/message", "LoggingMessageNotification"),
            Map.entry("notifications/cancelled", "CancelledNotification"),
            Map.entry("notifications/tools/list_changed", "ToolListChangedNotification"),
            Map.entry("notifications/prompts/list_changed", "PromptListChangedNotification"),
            Map.entry("notifications/resources/list_changed", "ResourceListChangedNotification"),
            Map.entry("notifications/resources/updated", "ResourceUpdatedNotification"),
            Map.entry("notifications/subscriptions/acknowledged", "SubscriptionsAcknowledgedNotification"),
            Map.entry("notifications/elicitation/complete", "ElicitationCompleteNotification"),
            Map.entry("notifications/tasks/status", "TaskStatusNotification"));

    private static final Map<String, String> REQUESTS = Map.of(
            "elicitation/create", "ElicitRequest",
            "sampling/createMessage", "CreateMessageRequest",
            "roots/list", "ListRootsRequest",
            "ping", "PingRequest");

    private WireValidator() {
    }

    /**
     * Validates one message a server sent.
     *
     * @param answering the method of the request a response answers, or {@code null} for other messages
     * @return the violations, empty when the message is valid
     */
    public static List<String> validate(String revision, JsonNode message, String answering) {
        String rev = McpSchemas.schemaRevision(revision);
        List<String> errors = new java.util.ArrayList<>(McpSchemas.validate(rev, "JSONRPCMessage", message));
        if (message.has("result") && answering != null) {
            JsonNode result = message.get("result");
            String resultType = result.path("resultType").asString("");
            String type;
            if (resultType.equals("input_required")) {
                type = "InputRequiredResult";
            } else if (resultType.equals("task") || (rev.equals("2026-07-28") && answering.startsWith("tasks/"))) {
                type = null; // the 2026-07-28 tasks extension is specified outside the core schema
            } else if (answering.equals("tools/call") && result.has("task")) {
                type = "CreateTaskResult";
            } else {
                type = RESULTS.get(answering);
            }
            if (type != null) {
                errors.addAll(McpSchemas.validate(rev, type, result));
            }
        } else if (message.has("error")) {
            errors.addAll(McpSchemas.validate(rev, rev.compareTo("2025-11-25") >= 0 ? "JSONRPCErrorResponse" : "JSONRPCError", message));
        } else if (message.has("method")) {
            String method = message.get("method").asString("");
            String type = message.has("id") ? REQUESTS.get(method) : NOTIFICATIONS.get(method);
            if (type == null) {
                errors.add("unexpected server message " + method);
            } else {
                errors.addAll(McpSchemas.validate(rev, type, message));
            }
        }
        return errors;
    }

    public static void assertValid(String revision, JsonNode message, String answering) {
        List<String> errors = validate(revision, message, answering);
        if (!errors.isEmpty()) {
            throw new AssertionError("Message is not valid MCP " + revision + ": " + errors + "\n" + message);
        }
    }
}
