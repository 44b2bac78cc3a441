package dev.tern.bench;

/**
 * The server's own split of each measured request, from its {@code Server-Timing} header.
 *
 * @param count how many replies carried the header
 */
public record ServerSplit(long count, Latency parse, Latency queue, Latency exec, Latency serialize) {
}
