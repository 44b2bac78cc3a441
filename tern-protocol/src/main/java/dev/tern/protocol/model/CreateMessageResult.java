package dev.tern.protocol.model;

import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

import tools.jackson.databind.annotation.JsonDeserialize;
import tools.jackson.databind.annotation.JsonSerialize;

import org.jspecify.annotations.Nullable;

/**
 * The client's answer to a sampling request.
 *
 * @param content one content block, or a {@link ContentList} when the client answered with several (for example
 *        {@link ToolUseContent} blocks when the request offered tools)
 */
public record CreateMessageResult(Role role,
        @JsonSerialize(using = SamplingContentJson.Writer.class) @JsonDeserialize(using = SamplingContentJson.Reader.class)
        Content content,
        String model, @Nullable String stopReason, @JsonProperty("_meta") @Nullable Map<String, Object> meta) {

    public CreateMessageResult(Role role, Content content, String model, @Nullable String stopReason) {
        this(role, content, model, stopReason, null);
    }
}
