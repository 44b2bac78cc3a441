package dev.tern.client.http;

/**
 * One server-sent event.
 *
 * @param id the last event id seen on the stream at this event, or {@code null}
 * @param event the event type, {@code "message"} when the server named none
 * @param data the data lines joined with {@code \n}
 */
public record SseEvent(String id, String event, String data) {
}
