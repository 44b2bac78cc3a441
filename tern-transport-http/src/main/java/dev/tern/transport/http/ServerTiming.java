package dev.tern.transport.http;

/**
 * Where the server's time went for one request, sent back as an HTTP {@code Server-Timing} header (milliseconds):
 * {@code parse} (decoding the body), {@code queue} (from decoded to the handler starting), {@code exec} (the handler)
 * and {@code ser} (encoding the response). Only made when the transport is asked to report it.
 */
final class ServerTiming {
    static final String HEADER = "server-timing";

    private final long received;
    private long parsed;
    private long handlerStarted;
    private long handlerEnded;

    ServerTiming(long received) {
        this.received = received;
    }

    void parsed(long nanos) {
        this.parsed = nanos;
    }

    void handler(long started, long ended) {
        this.handlerStarted = started;
        this.handlerEnded = ended;
    }

    /** The header value, given when encoding the response started and ended. */
    String header(long encodeStarted, long encodeEnded) {
        StringBuilder b = new StringBuilder(96);
        append(b, "parse", parsed - received);
        if (handlerStarted != 0) {
            append(b.append(", "), "queue", handlerStarted - parsed);
            append(b.append(", "), "exec", handlerEnded - handlerStarted);
        }
        append(b.append(", "), "ser", encodeEnded - encodeStarted);
        return b.toString();
    }

    private static void append(StringBuilder b, String name, long nanos) {
        long micros = Math.max(0, nanos) / 1_000;
        long fraction = micros % 1_000;
        b.append(name).append(";dur=").append(micros / 1_000).append('.');
        if (fraction < 100) {
            b.append(fraction < 10 ? "00" : "0");
        }
        b.append(fraction);
    }
}
