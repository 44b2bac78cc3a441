package dev.tern.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import picocli.CommandLine;

/** {@code tern new}: writes a Maven project of a small MCP server on Tern, from the templates under {@code new/}. */
@CommandLine.Command(name = "new", mixinStandardHelpOptions = true,
        description = {"Write a new Maven project of an MCP server on Tern: the Maven wrapper, a POM importing "
                + "tern-bom, one tool, a main serving it over HTTP or stdio, a test calling it, a README."},
        footer = {"", "Example:", "  ./tern new my-server --package com.acme.mcp && cd my-server && ./mvnw package",
            "", "The project builds against Tern's modules in the local Maven repository: run",
            "  bin/install", "in Tern once before."})
final class NewCommand implements Callable<Integer> {
    private static final String TEMPLATES = "new/";
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([a-zA-Z0-9.]+)}}");
    private static final Pattern JAVA_PACKAGE =
            Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*(\\.[a-zA-Z_][a-zA-Z0-9_]*)*");
    private static final Pattern ARTIFACT_ID = Pattern.compile("[a-zA-Z0-9][a-zA-Z0-9._-]*");

    @CommandLine.Parameters(index = "0", paramLabel = "DIR", description = "The folder to create (must not exist or be empty).")
    Path directory;

    @CommandLine.Option(names = "--package", paramLabel = "PACKAGE",
            description = "The Java package of the code, also the project's groupId (default: ${DEFAULT-VALUE}).",
            defaultValue = "com.example.mcp")
    String javaPackage;

    @CommandLine.Option(names = "--name", paramLabel = "NAME",
            description = "The project's artifactId and the server's name (default: the folder's name).")
    String name;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        String serverName = name != null ? name : directory.toAbsolutePath().normalize().getFileName().toString();
        if (!JAVA_PACKAGE.matcher(javaPackage).matches()) {
            return usage("--package " + javaPackage + " is not a Java package name (like com.acme.mcp)");
        }
        if (!ARTIFACT_ID.matcher(serverName).matches()) {
            return usage("'" + serverName + "' is not a Maven artifactId (letters, digits, '.', '-', '_'): "
                    + "give one with --name");
        }
        try {
            if (Files.exists(directory) && (!Files.isDirectory(directory) || !isEmpty(directory))) {
                return usage(directory + " exists and is not an empty folder");
            }
            List<Path> written = write(directory, values(javaPackage, serverName));
            spec.commandLine().getErr().println("tern: wrote " + written.size() + " files into " + directory
                    + "; next: cd " + directory + " && ./mvnw package");
            return 0;
        } catch (IOException | UncheckedIOException e) {
            spec.commandLine().getErr().println("tern: cannot write the project: " + e.getMessage());
            return 1;
        }
    }

    private int usage(String problem) {
        spec.commandLine().getErr().println("tern new: " + problem);
        return 2;
    }

    private static boolean isEmpty(Path folder) throws IOException {
        try (var entries = Files.list(folder)) {
            return entries.findAny().isEmpty();
        }
    }

    /** What the placeholders stand for: the versions the build filled in, the package and the name. */
    static Map<String, String> values(String javaPackage, String name) {
        Properties versions = new Properties();
        try (InputStream in = resource("versions.properties")) {
            versions.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> values = new LinkedHashMap<>();
        versions.stringPropertyNames().forEach(key -> values.put(key, versions.getProperty(key)));
        values.put("package", javaPackage);
        values.put("packagePath", javaPackage.replace('.', '/'));
        values.put("name", name);
        return values;
    }

    /** Writes every file {@code files.txt} lists into {@code target}, its placeholders replaced; returns them. */
    static List<Path> write(Path target, Map<String, String> values) throws IOException {
        List<Path> written = new ArrayList<>();
        String manifest = new String(resource("files.txt").readAllBytes(), StandardCharsets.UTF_8);
        for (String line : manifest.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] fields = line.trim().split("\\s+");
            Path file = target.resolve(fill(fields[1], values));
            String text;
            try (InputStream in = resource(fields[0])) {
                text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            Files.createDirectories(file.getParent());
            Files.writeString(file, fields[0].endsWith(".tmpl") ? fill(text, values) : text);
            if (file.getFileName().toString().equals("mvnw")) {
                Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
            }
            written.add(file);
        }
        return written;
    }

    /** {@code text} with each {@code {{key}}} replaced by its value; an unknown key is a fault of the templates. */
    static String fill(String text, Map<String, String> values) {
        Matcher m = PLACEHOLDER.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String value = values.get(m.group(1));
            if (value == null) {
                throw new IllegalStateException("no value for {{" + m.group(1) + "}} in Tern's project templates");
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        return m.appendTail(out).toString();
    }

    private static InputStream resource(String name) throws IOException {
        InputStream in = NewCommand.class.getResourceAsStream(TEMPLATES + name);
        if (in == null) {
            throw new IOException("Tern's project template " + TEMPLATES + name + " is missing from its jar");
        }
        return in;
    }
}
