package dev.tern.it;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import dev.tern.cli.Main;
import dev.tern.protocol.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A project from {@code tern new} builds, passes its own test and answers a call, offline: Tern's modules come from a
 * local repository of this build's output, everything else from the local repository this build fetched into.
 */
class NewProjectBuildTest {
    private static final Path ROOT = NodeTools.root();
    private static final Pattern MANAGED = Pattern.compile("<artifactId>(tern-[^<]+)</artifactId>\\s*<version>");
    private static final Pattern VERSION =
            Pattern.compile("<artifactId>tern-parent</artifactId>\\s*<version>([^<]+)</version>");

    @Test
    void aNewProjectBuildsOfflinePassesItsTestsAndItsJarAnswersTernCall(@TempDir Path tmp) throws Exception {
        Path project = tmp.resolve("weather");
        assertThat(Main.run("new", project.toString(), "--package", "com.acme.weather")).isZero();
        Path repository = ternRepository(tmp.resolve("repository"));

        Path log = tmp.resolve("build.log");
        List<String> build = List.of(project.resolve("mvnw").toString(), "-B", "-ntp", "-o",
                "-Dmaven.repo.local=" + repository, "-Dmaven.repo.local.tail=" + userRepository(), "package");
        ProcessBuilder builder = new ProcessBuilder(build).directory(project.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().remove("MAVEN_ARGS");
        Process maven = builder.start();
        try {
            assertThat(maven.waitFor(150, TimeUnit.SECONDS)).as("the build ends within 150 s").isTrue();
        } finally {
            maven.destroyForcibly();
        }
        assertThat(maven.exitValue()).as("./mvnw -o package in the new project:%n%s", tail(log)).isZero();
        String report = Files.readString(project.resolve("target/surefire-reports/TEST-com.acme.weather.GreeterTest.xml"));
        assertThat(report).contains("tests=\"2\"", "failures=\"0\"", "errors=\"0\"", "skipped=\"0\"");

        Path jar = project.resolve("target/weather.jar");
        String server = javaExecutable() + " -jar " + jar + " --stdio";
        NodeTools.Result tools = ternCall(project, server, "tools");
        assertThat(tools.exitCode()).as(tools.describe()).isZero();
        JsonNode listed = Json.mapper().readTree(tools.stdout());
        assertThat(listed.size()).as(tools.stdout()).isEqualTo(1);
        assertThat(listed.get(0).path("name").asString()).isEqualTo("greet");

        NodeTools.Result call = ternCall(project, server, "tool", "greet", "{\"name\":\"Grace\"}");
        assertThat(call.exitCode()).as(call.describe()).isZero();
        JsonNode result = Json.mapper().readTree(call.stdout());
        assertThat(result.path("isError").asBoolean(false)).isFalse();
        assertThat(result.path("structuredContent").path("message").asString()).isEqualTo("Hello, Grace!");
        assertThat(result.path("structuredContent").path("length").asInt()).isEqualTo("Hello, Grace!".length());

        NodeTools.Result read = ternCall(project, server, "resource", "greeter://stats");
        assertThat(read.exitCode()).as(read.describe()).isZero();
        assertThat(Json.mapper().readTree(read.stdout()).path("contents").get(0).path("text").asString())
                .isEqualTo("{\"greeted\":0}");
    }

    /** {@code tern call --stdio SERVER WHAT ARGS...}, as a user would run it on the new project's jar. */
    private static NodeTools.Result ternCall(Path project, String server, String... what) throws Exception {
        List<String> command = new ArrayList<>(List.of(javaExecutable(), "-cp", TernProcess.classpath(),
                "dev.tern.cli.Main", "call", "--stdio", server));
        command.addAll(List.of(what));
        return NodeTools.run(command, project, Map.of(), Duration.ofMinutes(1));
    }

    /**
     * A Maven local repository holding tern-parent, tern-bom and every module the BOM names that this build compiled,
     * each module's jar made from its {@code target/classes}: what {@code ./mvnw install} would put there.
     */
    private static Path ternRepository(Path repository) throws IOException {
        String parentPom = Files.readString(ROOT.resolve("pom.xml"));
        Matcher version = VERSION.matcher(parentPom);
        assertThat(version.find()).isTrue();
        String v = version.group(1);

        install(repository, "tern-parent", v, ROOT.resolve("pom.xml"), null);
        install(repository, "tern-bom", v, ROOT.resolve("tern-bom/pom.xml"), null);
        List<String> modules = new ArrayList<>();
        for (Matcher m = MANAGED.matcher(Files.readString(ROOT.resolve("tern-bom/pom.xml"))); m.find(); ) {
            modules.add(m.group(1));
        }
        assertThat(modules).contains("tern-server", "tern-transport-http", "tern-client");
        for (String module : modules) {
            Path classes = ROOT.resolve(module).resolve("target/classes");
            if (Files.isDirectory(classes)) {
                install(repository, module, v, ROOT.resolve(module).resolve("pom.xml"), classes);
            }
        }
        return repository;
    }

    private static void install(Path repository, String artifact, String version, Path pom, Path classes)
            throws IOException {
        Path folder = repository.resolve("dev/tern").resolve(artifact).resolve(version);
        Files.createDirectories(folder);
        Files.copy(pom, folder.resolve(artifact + "-" + version + ".pom"));
        if (classes != null) {
            try (OutputStream out = Files.newOutputStream(folder.resolve(artifact + "-" + version + ".jar"));
                 JarOutputStream jar = new JarOutputStream(out);
                 Stream<Path> files = Files.walk(classes)) {
                for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
                    jar.putNextEntry(new JarEntry(classes.relativize(file).toString().replace('\\', '/')));
                    Files.copy(file, jar);
                    jar.closeEntry();
                }
            }
        }
    }

    /** The local repository this build fetched the libraries and Maven plugins into. */
    private static Path userRepository() {
        String configured = System.getProperty("tern.localRepository");
        Path repository = configured != null && !configured.isBlank() ? Path.of(configured)
                : Path.of(System.getProperty("user.home"), ".m2", "repository");
        assertThat(repository).as("the local Maven repository of this build").isDirectory();
        return repository;
    }

    private static String javaExecutable() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    }
}
