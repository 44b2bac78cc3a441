package dev.tern.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.Consumer;

import dev.tern.server.McpServer;
import dev.tern.server.RequestContext;
import dev.tern.server.Tool;
import dev.tern.transport.stdio.StdioServerTransport;

/**
 * A server whose one tool, {@code traced}, hands on the {@code traceparent} of each call's {@code _meta} ("none" when
 * the call carries none). Over stdio ({@link #main}) it appends them to a file, one a line.
 */
public final class MetaRecordingServer {
    /** The tool, reporting to {@code seen}. */
    public static final class Tools {
        private final Consumer<String> seen;

        Tools(Consumer<String> seen) {
            this.seen = seen;
        }

        @Tool(description = "Hands on the call's traceparent")
        public String traced(RequestContext context) {
            String traceparent = context.meta().path("traceparent").asString("none");
            seen.accept(traceparent);
            return traceparent;
        }
    }

    private MetaRecordingServer() {
    }

    static McpServer server(Consumer<String> seen) {
        return McpServer.builder().info("meta-recording", "1").register(new Tools(seen)).build();
    }

    /** Serves over stdio, appending each call's traceparent to the file {@code args[0]}. */
    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        McpServer server = server(traceparent -> {
            synchronized (MetaRecordingServer.class) {
                try {
                    Files.writeString(file, traceparent + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                            StandardOpenOption.APPEND);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        });
        StdioServerTransport.builder(server).build().serve();
    }
}
