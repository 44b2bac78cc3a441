package dev.tern.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * README.md and docs/ stay true to the repository: every relative link leads to a file (and heading) that exists, and
 * every code block marked {@code <!-- file: PATH -->} on the line above it is still, line for line, in that file.
 */
class DocsTest {
    private static final Path ROOT = Path.of(System.getProperty("tern.root", "..")).toAbsolutePath().normalize();
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern SNIPPET = Pattern.compile("<!-- file: (\\S+) -->\\n```[a-z]*\\n(.*?)```", Pattern.DOTALL);

    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    @Test
    void everyRelativeLinkLeadsToAFileAndHeadingThatExist() throws IOException {
        List<String> broken = new ArrayList<>();
        int links = 0;
        for (Path page : pages()) {
            Matcher m = LINK.matcher(withoutCode(Files.readString(page, StandardCharsets.UTF_8)));
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("^[a-z][a-z0-9+.-]*:.*")) {
                    continue; // https:, mailto:
                }
                links++;
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                if (!Files.exists(resolved) || !resolved.startsWith(ROOT)) {
                    broken.add(ROOT.relativize(page) + ": " + target);
                } else if (hash >= 0 && !anchors(resolved).contains(target.substring(hash + 1))) {
                    broken.add(ROOT.relativize(page) + ": " + target + " (no such heading)");
                }
            }
        }
        assertThat(links).as("relative links checked").isGreaterThan(10);
        assertThat(broken).as("links that lead nowhere").isEmpty();
    }

    @Test
    void everySnippetThatNamesAFileIsStillInIt() throws IOException {
        List<String> stale = new ArrayList<>();
        int snippets = 0;
        for (Path page : pages()) {
            Matcher m = SNIPPET.matcher(Files.readString(page, StandardCharsets.UTF_8));
            while (m.find()) {
                snippets++;
                Path file = ROOT.resolve(m.group(1));
                if (!Files.exists(file)) {
                    stale.add(ROOT.relativize(page) + ": " + m.group(1) + " does not exist");
                } else if (!containsLines(lines(Files.readString(file, StandardCharsets.UTF_8)), lines(m.group(2)))) {
                    stale.add(ROOT.relativize(page) + ": the snippet of " + m.group(1) + " is no longer in it");
                }
            }
        }
        assertThat(snippets).as("snippets checked").isGreaterThan(2);
        assertThat(stale).isEmpty();
    }

    @Test
    void theDocsAreListedInTheirReadingOrder() throws IOException {
        String index = Files.readString(ROOT.resolve("docs/README.md"), StandardCharsets.UTF_8);
        for (Path page : pages()) {
            String name = page.getFileName().toString();
            if (page.getParent().endsWith("docs") && !name.equals("README.md")) {
                assertThat(index).as("docs/README.md links " + name).contains("](" + name + ")");
            }
        }
    }

    /** The lines of a snippet or file, each stripped of its indentation, blank ones left out. */
    private static List<String> lines(String text) {
        return text.lines().map(String::strip).filter(line -> !line.isEmpty()).toList();
    }

    private static boolean containsLines(List<String> file, List<String> snippet) {
        return !snippet.isEmpty() && java.util.Collections.indexOfSubList(file, snippet) >= 0;
    }

    private static String withoutCode(String markdown) {
        return markdown.replaceAll("(?s)```.*?```", "").replaceAll("`[^`\\n]*`", "");
    }

    /** GitHub's anchors for the headings of a Markdown file: lower case, punctuation dropped, spaces as dashes. */
    private static List<String> anchors(Path file) throws IOException {
        if (!file.toString().endsWith(".md")) {
            return List.of();
        }
        return Files.readString(file, StandardCharsets.UTF_8).replaceAll("(?s)```.*?```", "").lines()
                .filter(line -> line.startsWith("#"))
                .map(line -> line.replaceFirst("^#+\\s*", "").strip().toLowerCase(java.util.Locale.ROOT)
                        .replace("`", "").replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'))
                .toList();
    }
}
