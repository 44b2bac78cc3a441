package dev.tern.cli;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.File;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.tern.client.McpClient;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.protocol.model.TextContent;
import dev.tern.protocol.model.ToolDefinition;

import static org.assertj.core.api.Assertions.assertThat;

class ServeJarTest {

    private static final String PROVIDER = """
            package com.acme.tools;

            import dev.tern.server.Arg;
            import dev.tern.server.McpServer;
            import dev.tern.server.McpServerProvider;
            import dev.tern.server.Tool;

            public class AcmeTools implements McpServerProvider {
                public static class Greeter {
                    @Tool(description = "Greets someone")
                    public String greet(@Arg(description = "Who to greet") String name) {
                        return "Hello, " + name + "!";
                    }
                }

                @Override
                public void contribute(McpServer.Builder server) {
                    server.info("acme-tools", "1.0.0").register(new Greeter());
                }
            }
            """;

    private static final String FAILING = """
            package com.acme.broken;

            public class Broken implements dev.tern.server.McpServerProvider {
                @Override
                public void contribute(dev.tern.server.McpServer.Builder server) {
                    throw new IllegalStateException("ACME_TOKEN is not set");
                }
            }
            """;

    private static final String ANNOTATED = """
            package com.acme.annotated;

            import dev.tern.server.Arg;
            import dev.tern.server.Tool;

            public class Shouter {
                @Tool(description = "Repeats a word in capitals")
                public String shout(@Arg(description = "The word") String word) {
                    return word.toUpperCase() + "!";
                }
            }
            """;

    @TempDir
    static Path dir;

    private static Path toolsJar;
    private static Path toolsClasses;
    private static Path plainJar;
    private static Path brokenJar;
    private static Path annotatedJar;
    private static Path unknownClassJar;

    @BeforeAll
    static void buildJars() throws IOException {
        toolsClasses = compile("tools", "com/acme/tools/AcmeTools.java", PROVIDER, "com.acme.tools.AcmeTools");
        toolsJar = jar(toolsClasses, dir.resolve("acme-tools.jar"));
        Path plain = compile("plain", "com/acme/tools/AcmeTools.java", PROVIDER, null);
        plainJar = jar(plain, dir.resolve("no-provider.jar"));
        brokenJar = jar(compile("broken", "com/acme/broken/Broken.java", FAILING, "com.acme.broken.Broken"),
                dir.resolve("broken.jar"));
        Path annotated = compile("annotated", "com/acme/annotated/Shouter.java", ANNOTATED, null);
        Files.createDirectories(annotated.resolve(ProvidedServer.ANNOTATED_FILE).getParent());
        Files.writeString(annotated.resolve(ProvidedServer.ANNOTATED_FILE), "# served without a provider\ncom.acme.annotated.Shouter\n");
        annotatedJar = jar(annotated, dir.resolve("annotated.jar"));
        Files.writeString(annotated.resolve(ProvidedServer.ANNOTATED_FILE), "com.acme.annotated.Whisperer\n");
        unknownClassJar = jar(annotated, dir.resolve("unknown-class.jar"));
    }

    /** Compiles one source file against the test class path into a folder, with a service file naming it if asked. */
    private static Path compile(String name, String file, String source, String provider) throws IOException {
        Path src = dir.resolve(name + "-src").resolve(file);
        Files.createDirectories(src.getParent());
        Files.writeString(src, source);
        Path classes = dir.resolve(name + "-classes");
        Files.createDirectories(classes);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertThat(javac).as("a JDK's compiler (the tests run on a JDK)").isNotNull();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int exit = javac.run(null, null, errors, "-parameters",
                "--release", "21", "-cp", System.getProperty("java.class.path"), "-d", classes.toString(),
                src.toString());
        assertThat(exit).as(errors.toString()).isZero();
        if (provider != null) {
            Path services = classes.resolve(ProvidedServer.SERVICE_FILE);
            Files.createDirectories(services.getParent());
            Files.writeString(services, provider + "\n");
        }
        return classes;
    }

    private static Path jar(Path classes, Path jar) throws IOException {
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar)); Stream<Path> files = Files.walk(classes)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                out.putNextEntry(new JarEntry(classes.relativize(file).toString().replace(File.separatorChar, '/')));
                Files.copy(file, out);
                out.closeEntry();
            }
        }
        return jar;
    }

    private static List<String> tern(String... args) {
        return TernCommand.of(args);
    }

    @Test
    void servesTheToolsOfAJarsProviderOverStdio() throws Exception {
        try (McpClient client = McpClient.stdio(tern("serve", "--stdio", "--jar", toolsJar.toString()))
                .requestTimeout(Duration.ofSeconds(60)).build()) {
            List<ToolDefinition> tools = client.listTools().get(60, TimeUnit.SECONDS);
            assertThat(tools).extracting(ToolDefinition::name).containsExactly("greet");
            assertThat(String.valueOf(client.serverInfo())).contains("\"name\":\"acme-tools\"");
            CallToolResult result = client.callTool("greet", Map.of("name", "Ada")).get(60, TimeUnit.SECONDS);
            assertThat(((TextContent) result.content().get(0)).text()).isEqualTo("Hello, Ada!");
        }
    }

    @Test
    void servesTheAnnotatedClassesAJarListsWithoutAProvider() throws Exception {
        try (McpClient client = McpClient.stdio(tern("serve", "--stdio", "--jar", annotatedJar.toString()))
                .requestTimeout(Duration.ofSeconds(60)).build()) {
            assertThat(client.listTools().get(60, TimeUnit.SECONDS)).extracting(ToolDefinition::name)
                    .containsExactly("shout");
            CallToolResult result = client.callTool("shout", Map.of("word", "hey")).get(60, TimeUnit.SECONDS);
            assertThat(((TextContent) result.content().get(0)).text()).isEqualTo("HEY!");
        }
    }

    @Test
    void anAnnotatedClassThatIsNotThereIsRefused() {
        Run run = inProcess("serve", "--port", "0", "--jar", unknownClassJar.toString());
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err().strip()).startsWith("tern serve: cannot make the com.acme.annotated.Whisperer of "
                + "META-INF/tern/annotated-classes").doesNotContain("\n");
    }

    @Test
    void servesAClassPathOfFoldersAndJarsOverHttp() throws Exception {
        String classpath = toolsClasses + File.pathSeparator + plainJar;
        Process process = new ProcessBuilder(tern("serve", "--port", "0", "--classpath", classpath))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            String url = CompletableFuture.supplyAsync(() -> announcedUrl(process)).get(60, TimeUnit.SECONDS);
            try (McpClient client = McpClient.http(URI.create(url)).build()) {
                CallToolResult result = client.callTool("greet", Map.of("name", "Grace")).get(60, TimeUnit.SECONDS);
                assertThat(((TextContent) result.content().get(0)).text()).isEqualTo("Hello, Grace!");
            }
        } finally {
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    /** The URL of the start-up line {@code tern: serving ... at URL}, read from the process's stderr. */
    private static String announcedUrl(Process process) {
        Pattern serving = Pattern.compile("^tern: serving .* at (http://\\S+)");
        StringBuilder seen = new StringBuilder();
        try {
            BufferedReader err = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8));
            for (String line = err.readLine(); line != null; line = err.readLine()) {
                Matcher m = serving.matcher(line);
                if (m.find()) {
                    Thread.ofVirtual().start(() -> err.lines().forEach(l -> { }));
                    return m.group(1);
                }
                seen.append(line).append('\n');
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        throw new AssertionError("tern serve ended without serving:\n" + seen);
    }

    private record Run(int exit, String err) {
    }

    private static synchronized Run inProcess(String... args) {
        PrintStream err = System.err;
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
            int exit = Main.run(Map.of(), args);
            return new Run(exit, e.toString(StandardCharsets.UTF_8));
        } finally {
            System.setErr(err);
        }
    }

    @Test
    void aJarWithoutAProviderIsRefusedNamingTheServiceFile() {
        Run run = inProcess("serve", "--port", "0", "--jar", plainJar.toString());
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err().strip()).startsWith("tern serve: no dev.tern.server.McpServerProvider in [" + plainJar)
                .endsWith("list your provider classes in META-INF/services/dev.tern.server.McpServerProvider (or annotated "
                        + "classes in META-INF/tern/annotated-classes)")
                .doesNotContain("\n");
    }

    @Test
    void aProviderThatThrowsIsRefusedWithItsMessage() {
        Run run = inProcess("serve", "--port", "0", "--jar", brokenJar.toString());
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err().strip()).isEqualTo("tern serve: com.acme.broken.Broken failed: ACME_TOKEN is not set");
    }

    @Test
    void anExampleAndAJarTogetherAreRefused() {
        Run run = inProcess("serve", "--port", "0", "--example", "conformance", "--jar", toolsJar.toString());
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err().strip()).isEqualTo("tern serve: --example serves a built-in example, --jar and "
                + "--classpath your own tools: give one or the other");
        Run defaultNamed = inProcess("serve", "--port", "0", "--example", "user-directory", "--classpath",
                toolsJar.toString());
        assertThat(defaultNamed.exit()).isEqualTo(2);
    }

    @Test
    void aMissingEntryIsRefused() {
        Path missing = dir.resolve("missing.jar");
        Run run = inProcess("serve", "--port", "0", "--jar", missing.toString());
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err().strip()).isEqualTo("tern serve: no such file or folder: " + missing);
    }
}
