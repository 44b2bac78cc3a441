package dev.tern.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** tern-bom names every library module, at the version the build makes. */
class BomTest {
    private static final Path ROOT = Path.of(System.getProperty("tern.root", "..")).toAbsolutePath().normalize();
    /** The modules that are programs, tests or benchmarks: nobody depends on them. */
    private static final Set<String> NOT_LIBRARIES = Set.of("tern-bom", "tern-bench", "tern-cli", "tern-examples",
            "tern-it", "tern-jmh", "tern-picocli");
    private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");
    private static final Pattern MANAGED = Pattern.compile(
            "<groupId>dev\\.tern</groupId>\\s*<artifactId>([^<]+)</artifactId>\\s*<version>\\$\\{project\\.version}</version>");

    private static String version(String pom) {
        Matcher m = Pattern.compile("<artifactId>tern-(?:parent|bom)</artifactId>\\s*<version>([^<]+)</version>").matcher(pom);
        assertThat(m.find()).isTrue();
        return m.group(1);
    }

    @Test
    void theBomManagesEveryLibraryModuleAtTheParentsVersion() throws Exception {
        String parent = Files.readString(ROOT.resolve("pom.xml"));
        String bom = Files.readString(ROOT.resolve("tern-bom/pom.xml"));

        Set<String> libraries = new TreeSet<>();
        for (Matcher m = MODULE.matcher(parent); m.find(); ) {
            if (!NOT_LIBRARIES.contains(m.group(1))) {
                libraries.add(m.group(1));
            }
        }
        Set<String> managed = new TreeSet<>();
        for (Matcher m = MANAGED.matcher(bom); m.find(); ) {
            managed.add(m.group(1));
        }

        assertThat(managed).isEqualTo(libraries);
        assertThat(version(bom)).isEqualTo(version(parent));
        assertThat(List.of(bom.split("\n"))).noneMatch(line -> line.contains("<parent>"));
    }
}
