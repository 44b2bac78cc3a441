package dev.tern.client.http;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import io.netty.buffer.ByteBuf;

/** Reads a text/event-stream incrementally, as bytes arrive, per the WHATWG event stream format. Not thread-safe. */
final class SseParser {
    private final Consumer<SseEvent> listener;
    private final List<SseEvent> events = new ArrayList<>(4);
    private byte[] line = new byte[256];
    private int lineLength;
    private boolean lastWasCr;
    private StringBuilder data;
    private String eventType;
    private String lastEventId;

    SseParser(Consumer<SseEvent> listener) {
        this.listener = listener;
    }

    void feed(ByteBuf buf) {
        for (int i = buf.readerIndex(), end = buf.writerIndex(); i < end; i++) {
            feed(buf.getByte(i));
        }
    }

    void feed(byte[] bytes) {
        for (byte b : bytes) {
            feed(b);
        }
    }

    private void feed(byte b) {
        if (b == '\n') {
            if (lastWasCr) {
                lastWasCr = false;
                return;
            }
            endLine();
        } else if (b == '\r') {
            lastWasCr = true;
            endLine();
        } else {
            lastWasCr = false;
            if (lineLength == line.length) {
                line = java.util.Arrays.copyOf(line, line.length * 2);
            }
            line[lineLength++] = b;
        }
    }

    /** The events so far; a last event without its terminating blank line is dropped, as the format says. */
    List<SseEvent> events() {
        return events;
    }

    private void endLine() {
        int n = lineLength;
        lineLength = 0;
        if (n == 0) {
            dispatch();
            return;
        }
        if (line[0] == ':') {
            return;
        }
        int colon = -1;
        for (int i = 0; i < n; i++) {
            if (line[i] == ':') {
                colon = i;
                break;
            }
        }
        String field;
        String value;
        if (colon < 0) {
            field = new String(line, 0, n, StandardCharsets.UTF_8);
            value = "";
        } else {
            field = new String(line, 0, colon, StandardCharsets.UTF_8);
            int start = colon + 1;
            if (start < n && line[start] == ' ') {
                start++;
            }
            value = new String(line, start, n - start, StandardCharsets.UTF_8);
        }
        switch (field) {
            case "data" -> {
                if (data == null) {
                    data = new StringBuilder(value.length());
                } else {
                    data.append('\n');
                }
                data.append(value);
            }
            case "event" -> eventType = value;
            case "id" -> {
                if (value.indexOf('\0') < 0) {
                    lastEventId = value;
                }
            }
            default -> {
                // "retry" and unknown fields do not matter to a client that does not reconnect by itself
            }
        }
    }

    private void dispatch() {
        if (data == null) {
            eventType = null;
            return;
        }
        SseEvent event = new SseEvent(lastEventId, eventType == null ? "message" : eventType, data.toString());
        data = null;
        eventType = null;
        events.add(event);
        if (listener != null) {
            listener.accept(event);
        }
    }
}
