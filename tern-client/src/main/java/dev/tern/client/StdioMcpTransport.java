package dev.tern.client;

import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import dev.tern.protocol.Decoded;
import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcCodec;
import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.JsonRpcNotification;
import dev.tern.protocol.JsonRpcRequest;
import dev.tern.protocol.ProtocolVersion;
import dev.tern.protocol.RequestId;

import tools.jackson.databind.node.ObjectNode;

/**
 * A server started as a child process: newline-delimited JSON-RPC on its stdin and stdout, any number of requests in
 * flight, its stderr drained (the last lines kept for error messages).
 */
final class StdioMcpTransport implements McpTransport {
    private static final int MAX_LINE_BYTES = 64 * 1024 * 1024;
    private static final int STDERR_LINES_KEPT = 20;

    private final Process process;
    private final OutputStream stdin;
    private final JsonRpcCodec codec;
    private final Consumer<JsonRpcNotification> notifications;
    private final Consumer<String> stderrListener;
    private final PendingRequests pending = new PendingRequests();
    private final ArrayDeque<String> stderrTail = new ArrayDeque<>();
    private final Thread stderrDrain;
    private volatile boolean closed;
    private volatile McpClientException outputClosed;

    StdioMcpTransport(List<String> command, Map<String, String> environment, Path directory, Consumer<String> stderr,
            JsonRpcCodec codec, Consumer<JsonRpcNotification> notifications) {
        this.codec = codec;
        this.notifications = notifications;
        this.stderrListener = stderr;
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().putAll(environment);
        if (directory != null) {
            pb.directory(directory.toFile());
        }
        try {
            process = pb.start();
        } catch (IOException e) {
            throw new McpClientException("cannot start " + command + ": " + e.getMessage(), e);
        }
        stdin = new BufferedOutputStream(process.getOutputStream(), 64 * 1024);
        stderrDrain = Thread.ofPlatform().daemon().name("tern-client-stderr-" + process.pid()).start(this::drainStderr);
        Thread.ofPlatform().daemon().name("tern-client-stdout-" + process.pid()).start(this::readStdout);
    }

    @Override
    public boolean http() {
        return false;
    }

    @Override
    public CompletableFuture<McpReply> send(JsonRpcRequest request, ProtocolVersion version, List<String> extraHeaders) {
        CompletableFuture<McpReply> future = new CompletableFuture<>();
        long sent = System.nanoTime();
        pending.add(request.id(), future, sent);
        future.whenComplete((r, e) -> {
            Throwable cause = e == null ? null : McpClient.unwrap(e);
            boolean givenUp = cause instanceof java.util.concurrent.TimeoutException
                    || cause instanceof java.util.concurrent.CancellationException;
            if (pending.remove(request.id()) && givenUp && !closed && outputClosed == null) {
                // given up on (timeout, cancellation): tell the server to stop working on it
                ObjectNode params = Json.object();
                params.set("requestId", Json.mapper().valueToTree(idValue(request.id())));
                params.put("reason", "the client stopped waiting: " + reason(e));
                try {
                    write(new JsonRpcNotification("notifications/cancelled", params));
                } catch (McpClientException ignored) {
                    // the process is gone
                }
            }
        });
        try {
            write(request);
        } catch (McpClientException e) {
            future.completeExceptionally(e);
        }
        McpClientException gone = outputClosed;
        if (gone != null) {
            future.completeExceptionally(gone);
        }
        return future;
    }

    @Override
    public CompletableFuture<Void> notify(JsonRpcNotification notification, ProtocolVersion version) {
        try {
            write(notification);
            return CompletableFuture.completedFuture(null);
        } catch (McpClientException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            synchronized (stdin) {
                stdin.close();
            }
        } catch (IOException ignored) {
            // already gone
        }
        try {
            if (!process.waitFor(2, TimeUnit.SECONDS)) {
                process.destroy();
                if (!process.waitFor(2, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(2, TimeUnit.SECONDS);
                }
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        failAll(new McpClientException("the client is closed"));
    }

    private void write(JsonRpcMessage message) {
        byte[] bytes = codec.encode(message);
        synchronized (stdin) {
            try {
                stdin.write(bytes);
                stdin.write('\n');
                stdin.flush();
            } catch (IOException e) {
                awaitExit();
                throw new McpClientException("cannot write to the server process: " + e.getMessage() + exitNote(), e);
            }
        }
    }

    private void readStdout() {
        try (InputStream in = process.getInputStream()) {
            byte[] line = new byte[8192];
            byte[] buf = new byte[64 * 1024];
            int length = 0;
            boolean tooLong = false;
            int n;
            while ((n = in.read(buf)) > 0) {
                for (int i = 0; i < n; i++) {
                    byte b = buf[i];
                    if (b == '\n') {
                        if (!tooLong) {
                            int end = length > 0 && line[length - 1] == '\r' ? length - 1 : length;
                            if (end > 0) {
                                receive(line, end);
                            }
                        }
                        length = 0;
                        tooLong = false;
                    } else if (!tooLong) {
                        if (length == line.length) {
                            if (line.length >= MAX_LINE_BYTES) {
                                tooLong = true;
                                continue;
                            }
                            line = java.util.Arrays.copyOf(line, Math.min(MAX_LINE_BYTES, line.length * 2));
                        }
                        line[length++] = b;
                    }
                }
            }
        } catch (IOException e) {
            // the process ended
        }
        awaitExit();
        McpClientException gone = new McpClientException("the server process closed its output" + exitNote());
        outputClosed = gone;
        failAll(gone);
    }

    private void receive(byte[] line, int length) {
        long now = System.nanoTime();
        Decoded decoded = codec.decode(line, 0, length);
        if (!(decoded instanceof Decoded.Single single)) {
            return;
        }
        pending.receive(single.message(), now, notifications, answer -> {
            try {
                write(answer);
            } catch (McpClientException ignored) {
                // the process is gone; the reader will notice
            }
        });
    }

    private void drainStderr() {
        try (BufferedReader err = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = err.readLine()) != null) {
                synchronized (stderrTail) {
                    if (stderrTail.size() == STDERR_LINES_KEPT) {
                        stderrTail.removeFirst();
                    }
                    stderrTail.addLast(line.length() > 500 ? line.substring(0, 500) + "…" : line);
                }
                if (stderrListener != null) {
                    try {
                        stderrListener.accept(line);
                    } catch (RuntimeException ignored) {
                        // the listener's failure is its own
                    }
                }
            }
        } catch (IOException e) {
            // the process ended
        }
    }

    /** Gives a process that is going away a moment to exit and its last stderr lines to be read. */
    private void awaitExit() {
        try {
            if (process.waitFor(1, TimeUnit.SECONDS)) {
                stderrDrain.join(1000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void failAll(McpClientException cause) {
        pending.failAll(cause);
    }

    private String exitNote() {
        StringBuilder note = new StringBuilder();
        if (!process.isAlive()) {
            note.append(" (exit code ").append(process.exitValue()).append(')');
        }
        synchronized (stderrTail) {
            if (!stderrTail.isEmpty()) {
                note.append("; its last stderr lines:\n  ").append(String.join("\n  ", stderrTail));
            }
        }
        return note.toString();
    }

    private static Object idValue(RequestId id) {
        return switch (id) {
            case RequestId.NumberId n -> n.value();
            case RequestId.StringId s -> s.value();
        };
    }

    private static String reason(Throwable e) {
        Throwable t = McpClient.unwrap(e);
        return t.getClass().getSimpleName();
    }
}
