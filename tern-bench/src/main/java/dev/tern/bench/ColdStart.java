package dev.tern.bench;

/**
 * A cold start: from spawning the server process to its first successful reply.
 *
 * @param command the command that was spawned
 * @param startToFirstCallMs from process start to the first successful reply
 * @param firstCallMs how long that first successful request took
 * @param attempts requests sent until one succeeded (earlier ones failed because the server was not up yet)
 */
public record ColdStart(String command, double startToFirstCallMs, double firstCallMs, int attempts) {
}
