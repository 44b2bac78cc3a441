package dev.tern.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

/** tern new writes a complete project from its templates, and refuses what it cannot use. */
class NewCommandTest {
    private static final Path ROOT = Path.of(System.getProperty("tern.root", "..")).toAbsolutePath().normalize();

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int ternNew(String... args) {
        CommandLine commandLine = new CommandLine(new NewCommand());
        commandLine.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        return commandLine.execute(args);
    }

    @Test
    void writesTheWrapperThePomTheCodeTheTestAndTheReadmeWithEveryPlaceholderFilled(@TempDir Path tmp) throws Exception {
        Path project = tmp.resolve("weather-server");

        assertThat(ternNew(project.toString(), "--package", "com.acme.weather")).isZero();

        try (Stream<Path> files = Files.walk(project)) {
            assertThat(files.filter(Files::isRegularFile).map(f -> project.relativize(f).toString().replace('\\', '/')))
                    .containsExactlyInAnyOrder("pom.xml", "README.md", ".gitignore", "mvnw", "mvnw.cmd",
                            ".mvn/wrapper/maven-wrapper.properties",
                            "src/main/java/com/acme/weather/Greeter.java", "src/main/java/com/acme/weather/Main.java",
                            "src/main/resources/META-INF/tern/annotated-classes",
                            "src/test/java/com/acme/weather/GreeterTest.java");
        }
        assertThat(Files.readString(project.resolve("src/main/resources/META-INF/tern/annotated-classes")))
                .contains("\ncom.acme.weather.Greeter\n");
        for (String text : List.of("pom.xml", "README.md", "src/main/java/com/acme/weather/Main.java")) {
            assertThat(Files.readString(project.resolve(text))).doesNotContain("{{").doesNotContain("${project.");
        }
        String pom = Files.readString(project.resolve("pom.xml"));
        assertThat(pom).contains("<groupId>com.acme.weather</groupId>", "<artifactId>weather-server</artifactId>",
                "<tern.version>" + ternVersion() + "</tern.version>", "<artifactId>tern-bom</artifactId>");
        assertThat(Files.readString(project.resolve("src/main/java/com/acme/weather/Main.java")))
                .startsWith("package com.acme.weather;").contains("info(\"weather-server\"");
        assertThat(Files.isExecutable(project.resolve("mvnw"))).isTrue();
        assertThat(Files.readString(project.resolve("mvnw"))).isEqualTo(Files.readString(ROOT.resolve("mvnw")));
        assertThat(Files.readString(project.resolve(".mvn/wrapper/maven-wrapper.properties")))
                .isEqualTo(Files.readString(ROOT.resolve(".mvn/wrapper/maven-wrapper.properties")));
    }

    @Test
    void theNameOptionNamesTheArtifactAndTheServer(@TempDir Path tmp) throws Exception {
        assertThat(ternNew(tmp.resolve("x").toString(), "--name", "forecasts")).isZero();

        assertThat(Files.readString(tmp.resolve("x/pom.xml"))).contains("<artifactId>forecasts</artifactId>");
        assertThat(Files.readString(tmp.resolve("x/src/main/java/com/example/mcp/Main.java")))
                .contains("info(\"forecasts\"");
    }

    @Test
    void refusesAFolderThatHoldsFilesAndLeavesThemAlone(@TempDir Path tmp) throws Exception {
        Files.writeString(tmp.resolve("notes.txt"), "mine");

        assertThat(ternNew(tmp.toString(), "--name", "server")).isEqualTo(2);

        assertThat(err.toString(StandardCharsets.UTF_8)).contains("exists and is not an empty folder");
        try (Stream<Path> files = Files.list(tmp)) {
            assertThat(files).containsExactly(tmp.resolve("notes.txt"));
        }
    }

    @Test
    void refusesAPackageThatJavaCannotName(@TempDir Path tmp) {
        assertThat(ternNew(tmp.resolve("p").toString(), "--package", "com.acme-corp")).isEqualTo(2);

        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--package com.acme-corp is not a Java package name");
        assertThat(tmp.resolve("p")).doesNotExist();
    }

    @Test
    void aPlaceholderWithoutAValueIsAnErrorNotAnEmptyString() {
        assertThat(NewCommand.fill("v{{slf4j}} of {{name}}", java.util.Map.of("slf4j", "2", "name", "x")))
                .isEqualTo("v2 of x");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> NewCommand.fill("{{nope}}", java.util.Map.of()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("{{nope}}");
    }

    private static String ternVersion() throws Exception {
        Matcher m = Pattern.compile("<artifactId>tern-parent</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(Files.readString(ROOT.resolve("pom.xml")));
        assertThat(m.find()).isTrue();
        return m.group(1);
    }
}
