package dev.tern.cli;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.function.UnaryOperator;

import dev.tern.server.McpServer;
import dev.tern.server.McpServerProvider;

/**
 * The server of {@code tern serve --jar/--classpath}: every {@link McpServerProvider} in those entries applied in turn,
 * and the annotated classes they list.
 */
final class ProvidedServer {

    static final String SERVICE_FILE = "META-INF/services/dev.tern.server.McpServerProvider";

    /** Names classes, one a line, whose annotated methods are served without a provider. */
    static final String ANNOTATED_FILE = "META-INF/tern/annotated-classes";

    private ProvidedServer() {
    }

    /** The entries of {@code --jar} and {@code --classpath} (a list split by the platform's path separator). */
    static List<Path> entries(List<Path> jars, List<String> classpaths) {
        List<Path> entries = new ArrayList<>(jars);
        for (String classpath : classpaths) {
            for (String entry : classpath.split(File.pathSeparator)) {
                if (!entry.isBlank()) {
                    entries.add(Path.of(entry));
                }
            }
        }
        return entries;
    }

    /**
     * Builds the server from the providers and annotated classes found in {@code entries} (not Tern's own class path).
     *
     * @throws IllegalArgumentException with a one-line message for a missing entry, no provider or a failing one
     */
    static McpServer load(List<Path> entries, UnaryOperator<McpServer.Builder> settings) {
        // Left open on purpose: the providers' classes serve calls for as long as the process runs.
        return open(entries, settings).server();
    }

    /** A server built from entries, and the class loader of their classes, to close once the server is closed. */
    record Loaded(McpServer server, URLClassLoader loader) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            server.close();
            loader.close();
        }
    }

    /** As {@link #load}, keeping the class loader so that its classes can be dropped (what {@code tern dev} does). */
    static Loaded open(List<Path> entries, UnaryOperator<McpServer.Builder> settings) {
        List<URL> urls = new ArrayList<>();
        for (Path entry : entries) {
            if (!Files.exists(entry)) {
                throw new IllegalArgumentException("no such file or folder: " + entry);
            }
            try {
                urls.add(entry.toAbsolutePath().toUri().toURL());
            } catch (MalformedURLException e) {
                throw new IllegalArgumentException("not a usable path: " + entry + " (" + e.getMessage() + ")");
            }
        }
        URLClassLoader loader = new URLClassLoader("tern-serve", urls.toArray(URL[]::new),
                ProvidedServer.class.getClassLoader());
        try {
            return new Loaded(build(entries, loader, settings), loader);
        } catch (RuntimeException | LinkageError e) {
            try {
                loader.close();
            } catch (IOException ignored) {
                // The build's failure is the one to report.
            }
            throw e;
        }
    }

    private static McpServer build(List<Path> entries, URLClassLoader loader, UnaryOperator<McpServer.Builder> settings) {
        McpServer.Builder builder = settings.apply(McpServer.builder());
        int applied = 0;
        try {
            for (ServiceLoader.Provider<McpServerProvider> found
                    : ServiceLoader.load(McpServerProvider.class, loader).stream().toList()) {
                if (found.type().getClassLoader() != loader) {
                    continue;
                }
                McpServerProvider provider = found.get();
                try {
                    provider.contribute(builder);
                } catch (RuntimeException e) {
                    throw new IllegalArgumentException(found.type().getName() + " failed: " + message(e), e);
                }
                applied++;
            }
        } catch (ServiceConfigurationError e) {
            throw new IllegalArgumentException(e.getMessage() + (e.getCause() == null ? "" : ": " + message(e.getCause())), e);
        }
        applied += registerAnnotated(loader, builder);
        if (applied == 0) {
            throw new IllegalArgumentException("no " + McpServerProvider.class.getName() + " in " + entries
                    + ": list your provider classes in " + SERVICE_FILE + " (or annotated classes in "
                    + ANNOTATED_FILE + ")");
        }
        try {
            return builder.build();
        } catch (IllegalStateException e) {
            throw new IllegalArgumentException(message(e), e);
        }
    }

    /** Registers an instance, made by its no-argument constructor, of every class the entries' annotated-classes files name. */
    private static int registerAnnotated(URLClassLoader loader, McpServer.Builder builder) {
        int registered = 0;
        try {
            for (URL file : Collections.list(loader.findResources(ANNOTATED_FILE))) {
                String text;
                try (InputStream in = file.openStream()) {
                    text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
                for (String line : text.lines().toList()) {
                    String name = line.replaceFirst("#.*", "").strip();
                    if (name.isEmpty()) {
                        continue;
                    }
                    Object service;
                    try {
                        service = loader.loadClass(name).getDeclaredConstructor().newInstance();
                    } catch (ReflectiveOperationException | LinkageError e) {
                        throw new IllegalArgumentException("cannot make the " + name + " of " + ANNOTATED_FILE
                                + " (a public class with a public no-argument constructor): " + message(e), e);
                    }
                    try {
                        builder.register(service);
                    } catch (RuntimeException e) {
                        throw new IllegalArgumentException(name + " failed: " + message(e), e);
                    }
                    registered++;
                }
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + ANNOTATED_FILE + ": " + message(e), e);
        }
        return registered;
    }

    private static String message(Throwable e) {
        Throwable cause = e;
        while (cause.getMessage() == null && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause.getMessage() == null ? cause.getClass().getName() : cause.getMessage();
    }
}
