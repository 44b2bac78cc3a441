package dev.tern.cli;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import dev.tern.server.McpServer;
import dev.tern.transport.http.HttpServerTransport;

import picocli.CommandLine;

/**
 * {@code tern dev}: serves the Maven project in a folder from its compiled classes and serves them again, on the same
 * port, whenever they change.
 */
@CommandLine.Command(name = "dev", mixinStandardHelpOptions = true,
        description = {"Serve the MCP server of the Maven project in the current folder (its target/classes and "
                + "runtime dependencies) over HTTP, and reload it on the same port whenever its classes change: "
                + "compile in your IDE or with ./mvnw compile and call again.",
            "The project names what to serve as `tern serve --jar` does: a dev.tern.server.McpServerProvider listed in "
                + ProvidedServer.SERVICE_FILE + ", or annotated classes listed in " + ProvidedServer.ANNOTATED_FILE
                + " (projects made by `tern new` have one)."},
        footer = {"", "Example:", "  cd my-server && ./mvnw -q compile && ../tern/tern dev",
            "  (then, in another terminal, after a change: ./mvnw -q compile)"})
final class DevCommand implements Callable<Integer> {
    private static final String CLASSES = "target/classes";
    private static final String DEPENDENCIES_FILE = "target/tern-dev.classpath";
    /** Changes closer together than this are one reload: a compile writes many files. */
    private static final Duration SETTLE = Duration.ofMillis(300);
    /**
     * A build first deletes the classes it will write again, so a reload in between fails: its error is shown only
     * when no more changes follow within this time.
     */
    private static final Duration BUILD_GAP = Duration.ofSeconds(2);

    @CommandLine.Option(names = "--dir", paramLabel = "DIR", defaultValue = ".",
            description = "The project's folder (default: the current one).")
    Path dir;

    @CommandLine.Option(names = "--host", defaultValue = "127.0.0.1",
            description = "The address to listen on (default: ${DEFAULT-VALUE}).")
    String host;

    @CommandLine.Option(names = "--port", defaultValue = "8080",
            description = "The port to listen on, kept across reloads (default: ${DEFAULT-VALUE}; 0 picks a free one).")
    int port;

    @CommandLine.Option(names = "--classpath", paramLabel = "LIST",
            description = "The project's dependencies, separated by the platform's path separator, instead of asking "
                    + "Maven for them (Tern's own modules come from tern itself either way).")
    String classpath;

    private final Object lock = new Object();
    private volatile boolean stopping;
    private volatile int exitCode;
    private ProvidedServer.Loaded loaded;
    private HttpServerTransport transport;

    @Override
    public Integer call() throws Exception {
        Path classes = dir.resolve(CLASSES);
        if (!Files.isDirectory(classes)) {
            System.err.println("tern dev: no " + CLASSES + " in " + dir.toAbsolutePath().normalize()
                    + ": compile the project first (./mvnw compile)");
            return 2;
        }
        List<Path> entries = new ArrayList<>(List.of(classes));
        try {
            entries.addAll(dependencies());
            loaded = ProvidedServer.open(entries, UnaryOperator.identity());
        } catch (IllegalArgumentException | UncheckedIOException e) {
            System.err.println("tern dev: " + e.getMessage());
            return 2;
        }
        try {
            transport = start(loaded.server(), port);
        } catch (Exception e) { // Netty rethrows the bind's IOException unchecked
            if (!(e instanceof IOException)) {
                throw e;
            }
            System.err.println(ServeCommand.cannotListen("tern dev", host, port, e));
            loaded.close();
            return 1;
        }
        int boundPort = transport.port();
        try (WatchService watcher = FileSystems.getDefault().newWatchService()) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                stopping = true;
                closeQuietly(watcher);
                synchronized (lock) {
                    stop(transport, loaded);
                }
            }, "tern-dev-shutdown"));
            watchTree(watcher, classes);
            System.err.println("tern: serving " + dir.toAbsolutePath().normalize() + " at " + transport.url()
                    + ", reloading when " + CLASSES + " changes");
            System.err.println("tern: connect a client with {\"type\": \"http\", \"url\": \"" + transport.url() + "\"}");
            String failure = null;
            while (!stopping) {
                WatchKey change = failure == null ? watcher.take() : watcher.poll(BUILD_GAP.toMillis(), TimeUnit.MILLISECONDS);
                if (change == null) {
                    System.err.println("tern dev: the changed classes do not load, still serving the previous ones: "
                            + failure);
                    failure = null;
                    continue;
                }
                settle(watcher, change);
                failure = stopping ? null : reload(entries, boundPort);
            }
        } catch (ClosedWatchServiceException e) {
            // The shutdown hook closed it: the hook stops the server.
        }
        return exitCode;
    }

    /** Takes the changes that follow {@code key}'s until they settle, watching the folders they create. */
    private static void settle(WatchService watcher, WatchKey key) throws InterruptedException, IOException {
        while (key != null) {
            for (var event : key.pollEvents()) {
                if (event.context() instanceof Path name && key.watchable() instanceof Path folder) {
                    Path changed = folder.resolve(name);
                    if (event.kind() == StandardWatchEventKinds.ENTRY_CREATE && Files.isDirectory(changed)) {
                        watchTree(watcher, changed);
                    }
                }
            }
            key.reset();
            key = watcher.poll(SETTLE.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** Serves the classes as they are now; returns why they do not load, or null once they are served. */
    private String reload(List<Path> entries, int boundPort) {
        long started = System.nanoTime();
        ProvidedServer.Loaded next;
        try {
            next = ProvidedServer.open(entries, UnaryOperator.identity());
        } catch (RuntimeException | LinkageError e) {
            return e.getMessage();
        }
        synchronized (lock) {
            if (stopping) {
                closeQuietly(next);
                return null;
            }
            // Clients reconnect on their next request: a reload is a restart of the server behind the same port.
            stop(transport, loaded);
            try {
                transport = startOnFreedPort(next.server(), boundPort);
                loaded = next;
            } catch (Exception e) {
                System.err.println("tern dev: cannot listen again on port " + boundPort + ": " + e.getMessage());
                closeQuietly(next);
                stopping = true;
                exitCode = 1;
                return null;
            }
        }
        System.err.println("tern dev: reloaded in " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)
                + " ms");
        return null;
    }

    /** The closed listener's port may take a moment to be free again. */
    private HttpServerTransport startOnFreedPort(McpServer server, int boundPort) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (true) {
            try {
                return start(server, boundPort);
            } catch (Exception e) {
                if (!(e instanceof IOException) || System.nanoTime() - deadline > 0) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
    }

    private HttpServerTransport start(McpServer server, int onPort) throws InterruptedException {
        return HttpServerTransport.builder(server).host(host).port(onPort).shutdownTimeout(Duration.ofSeconds(2))
                .build().start();
    }

    private static void stop(HttpServerTransport transport, ProvidedServer.Loaded loaded) {
        transport.close();
        closeQuietly(loaded);
    }

    /** The project's runtime dependencies: from {@code --classpath}, else from Maven, once at start. */
    private List<Path> dependencies() {
        if (classpath != null) {
            return ProvidedServer.entries(List.of(), List.of(classpath));
        }
        if (!Files.isRegularFile(dir.resolve("pom.xml"))) {
            return List.of();
        }
        Path wrapper = dir.resolve(File.separatorChar == '\\' ? "mvnw.cmd" : "mvnw");
        String maven = Files.isExecutable(wrapper) ? wrapper.toAbsolutePath().toString() : "mvn";
        Path output = dir.resolve(DEPENDENCIES_FILE).toAbsolutePath();
        List<String> command = List.of(maven, "-q", "-B", "dependency:build-classpath", "-Dmdep.includeScope=runtime",
                "-Dmdep.outputFile=" + output);
        try {
            Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!process.waitFor(5, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IllegalArgumentException("Maven took more than 5 minutes to list the dependencies");
            }
            if (process.exitValue() != 0 || !Files.isRegularFile(output)) {
                throw new IllegalArgumentException("Maven could not list the dependencies (run `" + String.join(" ", command)
                        + "` to see why, or give them with --classpath)");
            }
            return ProvidedServer.entries(List.of(), List.of(Files.readString(output, StandardCharsets.UTF_8).strip()));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot run " + maven + " to list the dependencies: " + e.getMessage()
                    + " (give them with --classpath)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalArgumentException("interrupted while Maven listed the dependencies", e);
        }
    }

    private static void watchTree(WatchService watcher, Path root) throws IOException {
        try (Stream<Path> folders = Files.walk(root)) {
            for (Path folder : folders.filter(Files::isDirectory).toList()) {
                folder.register(watcher, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
                        StandardWatchEventKinds.ENTRY_DELETE);
            }
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception ignored) {
            // Closing on the way out: nothing left to tell.
        }
    }
}
