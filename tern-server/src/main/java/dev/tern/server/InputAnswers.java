package dev.tern.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.tern.protocol.ErrorCodes;
import dev.tern.protocol.Json;
import dev.tern.protocol.McpException;
import dev.tern.protocol.model.CreateMessageResult;
import dev.tern.protocol.model.ElicitResult;
import dev.tern.protocol.model.Root;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/** The client's answers to the {@link InputRequest}s of one {@link RequestContext#ask} call, by key. */
public final class InputAnswers {
    private final Map<String, JsonNode> answers;

    InputAnswers(Map<String, JsonNode> answers) {
        this.answers = Map.copyOf(answers);
    }

    /** The raw answer to the request with that key. */
    public JsonNode raw(String key) {
        JsonNode answer = answers.get(key);
        if (answer == null) {
            throw new IllegalArgumentException("No answer for input request " + key);
        }
        return answer;
    }

    public ElicitResult elicitation(String key) {
        JsonNode answer = raw(key);
        String action = answer.path("action").isString() ? answer.get("action").stringValue() : null;
        if (action == null || !(action.equals("accept") || action.equals("decline") || action.equals("cancel"))) {
            throw new McpException(ErrorCodes.INVALID_PARAMS,
                    "Malformed answer from the client: " + key + ".action must be accept, decline or cancel");
        }
        return convert(answer, ElicitResult.class);
    }

    public CreateMessageResult sampling(String key) {
        return convert(raw(key), CreateMessageResult.class);
    }

    public List<Root> roots(String key) {
        List<Root> roots = new ArrayList<>();
        for (JsonNode r : raw(key).path("roots")) {
            roots.add(convert(r, Root.class));
        }
        return roots;
    }

    static <T> T convert(JsonNode node, Class<T> type) {
        try {
            return Json.mapper().treeToValue(node, type);
        } catch (JacksonException e) {
            throw new McpException(ErrorCodes.INVALID_PARAMS, "Malformed answer from the client: " + e.getOriginalMessage());
        }
    }
}
