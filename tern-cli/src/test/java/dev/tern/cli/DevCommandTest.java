package dev.tern.cli;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.tern.client.McpClient;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.TextContent;

import static org.assertj.core.api.Assertions.assertThat;

class DevCommandTest {

    private static final String GREETER = """
            package com.acme.dev;

            import dev.tern.server.Arg;
            import dev.tern.server.Tool;

            public class Greeter {
                @Tool(description = "Greets someone")
                public String greet(@Arg(description = "Who to greet") String name) {
                    return "%s, " + name + "!";
                }
            }
            """;

    @TempDir
    Path project;

    @Test
    void servesTheProjectsClassesAndServesTheChangedOnesOnTheSamePort() throws Exception {
        Path classes = project.resolve("target/classes");
        compile(classes, "Hello");
        Files.createDirectories(classes.resolve("META-INF/tern"));
        Files.writeString(classes.resolve(ProvidedServer.ANNOTATED_FILE), "com.acme.dev.Greeter\n");

        Process process = new ProcessBuilder(tern("dev", "--dir", project.toString(), "--port", "0", "--classpath", ""))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        BlockingQueue<String> err = lines(process);
        try {
            String url = awaitLine(err, Pattern.compile("^tern: serving .* at (http://\\S+), reloading when"), 60).group(1);
            assertThat(greet(url)).isEqualTo("Hello, Ada!");

            compile(classes, "Hi");
            awaitLine(err, Pattern.compile("^tern dev: reloaded in \\d+ ms"), 60);
            assertThat(greet(url)).as("the same URL, the changed class").isEqualTo("Hi, Ada!");

            // A change that does not load leaves the previous classes served.
            Files.writeString(classes.resolve(ProvidedServer.ANNOTATED_FILE), "com.acme.dev.Missing\n");
            Matcher refused = awaitLine(err, Pattern.compile("^tern dev: the changed classes do not load, still serving "
                    + "the previous ones: (.*)"), 60);
            assertThat(refused.group(1)).contains("com.acme.dev.Missing");
            assertThat(greet(url)).isEqualTo("Hi, Ada!");
        } finally {
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    @Test
    void aProjectWithoutCompiledClassesIsRefusedWithTheCommandToRun() {
        PrintStream saved = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int exit;
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            exit = Main.run(Map.of(), "dev", "--dir", project.toString(), "--port", "0");
        } finally {
            System.setErr(saved);
        }
        assertThat(exit).isEqualTo(2);
        assertThat(captured.toString(StandardCharsets.UTF_8).strip()).isEqualTo("tern dev: no target/classes in "
                + project.toAbsolutePath().normalize() + ": compile the project first (./mvnw compile)");
    }

    private static String greet(String url) throws Exception {
        try (McpClient client = McpClient.http(URI.create(url)).requestTimeout(Duration.ofSeconds(30)).build()) {
            CallToolResult result = client.callTool("greet", Map.of("name", "Ada")).get(30, TimeUnit.SECONDS);
            return ((TextContent) result.content().get(0)).text();
        }
    }

    /** Compiles the greeter answering with {@code greeting} into {@code classes}, as a build of the project would. */
    private void compile(Path classes, String greeting) throws IOException {
        Path source = project.resolve("src/main/java/com/acme/dev/Greeter.java");
        Files.createDirectories(source.getParent());
        Files.writeString(source, GREETER.formatted(greeting));
        Files.createDirectories(classes);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int exit = javac.run(null, null, errors, "-parameters", "--release", "21",
                "-cp", System.getProperty("java.class.path"), "-d", classes.toString(), source.toString());
        assertThat(exit).as(errors.toString()).isZero();
    }

    private static List<String> tern(String... args) {
        return TernCommand.of(args);
    }

    /** The process's stderr, line by line, as it comes. */
    private static BlockingQueue<String> lines(Process process) {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread.ofVirtual().start(() -> {
            try (BufferedReader err = new BufferedReader(new InputStreamReader(process.getErrorStream(),
                    StandardCharsets.UTF_8))) {
                err.lines().forEach(lines::add);
            } catch (IOException ignored) {
                // The process ended.
            }
        });
        return lines;
    }

    private static Matcher awaitLine(BlockingQueue<String> lines, Pattern pattern, int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        StringBuilder seen = new StringBuilder();
        while (System.nanoTime() - deadline < 0) {
            String line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (line == null) {
                break;
            }
            Matcher m = pattern.matcher(line);
            if (m.find()) {
                return m;
            }
            seen.append(line).append('\n');
        }
        throw new AssertionError("no line matching " + pattern + " in:\n" + seen);
    }
}
