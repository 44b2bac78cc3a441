package dev.tern.cli;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.tern.examples.Examples;
import dev.tern.server.McpServer;
import dev.tern.transport.stdio.StdioServerTransport;
import picocli.CommandLine;

/** {@code tern serve}: serves an example server. */
@CommandLine.Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Serve an MCP server.",
            "Serves over stdio (newline-delimited JSON on stdin/stdout, logs on stderr). "
                + "Streamable HTTP comes with the HTTP transport."})
final class ServeCommand implements Callable<Integer> {

    @CommandLine.Option(names = "--stdio", description = "Serve over stdin/stdout (the only transport in this build).")
    boolean stdio;

    @CommandLine.Option(names = "--example", paramLabel = "NAME", defaultValue = Examples.DEFAULT,
            description = "Which example to serve: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).",
            completionCandidates = ExampleNames.class)
    String example;

    @CommandLine.Option(names = "--shutdown-timeout", paramLabel = "DURATION", defaultValue = "PT5S",
            description = "How long in-flight requests may take to finish on shutdown, ISO-8601 (default: ${DEFAULT-VALUE}).",
            converter = DurationConverter.class)
    Duration shutdownTimeout;

    @Override
    public Integer call() throws Exception {
        McpServer server;
        try {
            server = Examples.create(example);
        } catch (IllegalArgumentException e) {
            System.err.println("tern serve: " + e.getMessage());
            return 2;
        }
        return serveStdio(server);
    }

    private int serveStdio(McpServer server) throws InterruptedException {
        OutputStream stdout = new FileOutputStream(FileDescriptor.out);
        // Nothing but protocol messages may reach stdout: stray prints go to stderr.
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true));
        StdioServerTransport transport = StdioServerTransport.builder(server)
                .input(System.in)
                .output(stdout)
                .shutdownDeadline(shutdownTimeout)
                .build();
        CountDownLatch served = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            transport.stop();
            try {
                served.await(shutdownTimeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "tern-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        System.err.println("tern: serving example \"" + example + "\" over stdio");
        try {
            StdioServerTransport.Outcome outcome = transport.serve();
            return outcome == StdioServerTransport.Outcome.OUTPUT_CLOSED ? 1 : 0;
        } finally {
            server.close();
            served.countDown();
        }
    }

    static final class ExampleNames extends java.util.ArrayList<String> {
        ExampleNames() {
            super(Examples.names());
        }
    }

    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            return Duration.parse(value);
        }
    }
}
