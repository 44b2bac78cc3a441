package dev.tern.protocol.model;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * A content block of a tool result, prompt message or sampling message. Not sealed: revisions add kinds.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = TextContent.class, name = "text"),
        @JsonSubTypes.Type(value = ImageContent.class, name = "image"),
        @JsonSubTypes.Type(value = AudioContent.class, name = "audio"),
        @JsonSubTypes.Type(value = ResourceLink.class, name = "resource_link"),
        @JsonSubTypes.Type(value = EmbeddedResource.class, name = "resource"),
        @JsonSubTypes.Type(value = ToolUseContent.class, name = "tool_use"),
        @JsonSubTypes.Type(value = ToolResultContent.class, name = "tool_result")
})
public interface Content {

    static TextContent text(String text) {
        return new TextContent(text, null, null);
    }

    static ImageContent image(String base64, String mimeType) {
        return new ImageContent(base64, mimeType, null, null);
    }

    static AudioContent audio(String base64, String mimeType) {
        return new AudioContent(base64, mimeType, null, null);
    }

    static EmbeddedResource resource(ResourceContents contents) {
        return new EmbeddedResource(contents, null, null);
    }
}
