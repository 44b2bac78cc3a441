package dev.tern.transport.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Runs h2spec 2.2.0 (the conformance suite for HTTP/2 servers, RFC 7540/7541) against the h2c endpoint and against
 * TLS h2. Every case must pass unless {@code h2spec-exclusions.txt} names it with the reason.
 */
class H2SpecTest {
    private static final String RESOURCE = "h2spec/2.2.0/h2spec_linux_amd64.tar.gz";
    private static Path binary;
    private static Map<String, String> exclusions;

    @BeforeAll
    static void extract() throws IOException {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch");
        assumeTrue(os.contains("linux") && (arch.equals("amd64") || arch.equals("x86_64")),
                "h2spec ships a linux-amd64 binary; this is " + os + "/" + arch);
        Path dir = Path.of("target", "h2spec");
        Files.createDirectories(dir);
        binary = dir.resolve("h2spec");
        try (InputStream in = H2SpecTest.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            assertThat(in).as(RESOURCE + " on the test class path").isNotNull();
            Files.write(binary, untar(new GZIPInputStream(in), "h2spec"));
        }
        assertThat(binary.toFile().setExecutable(true)).isTrue();
        exclusions = new LinkedHashMap<>();
        try (InputStream in = H2SpecTest.class.getResourceAsStream("/h2spec-exclusions.txt")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                line = line.strip();
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                int bar = line.indexOf('|');
                assertThat(bar).as("exclusion needs 'id | reason': %s", line).isPositive();
                String reason = line.substring(bar + 1).strip();
                assertThat(reason).as("exclusion without a reason: %s", line).isNotEmpty();
                exclusions.put(line.substring(0, bar).strip(), reason);
            }
        }
    }

    /** The one regular file named {@code name} in a tar stream. */
    private static byte[] untar(InputStream tar, String name) throws IOException {
        byte[] header = new byte[512];
        for (int entries = 0; entries < 1_000; entries++) {
            if (tar.readNBytes(header, 0, 512) < 512 || header[0] == 0) {
                break;
            }
            String entry = new String(header, 0, 100, StandardCharsets.US_ASCII).replace("\0", "").strip();
            long size = Long.parseLong(new String(header, 124, 12, StandardCharsets.US_ASCII).replace("\0", "").strip(), 8);
            byte[] content = tar.readNBytes((int) size);
            long pad = (512 - size % 512) % 512;
            tar.readNBytes((int) pad);
            if (entry.equals(name) || entry.endsWith("/" + name)) {
                return content;
            }
        }
        throw new IOException(name + " not found in the archive");
    }

    @Test
    void h2cPassesH2spec() throws Exception {
        try (Served served = new Served()) {
            run(served.port(), false);
        }
    }

    @Test
    void tlsH2PassesH2spec() throws Exception {
        try (Served served = new Served(b -> b.tls(t -> t.selfSigned()))) {
            run(served.port(), true);
        }
    }

    private void run(int port, boolean tls) throws Exception {
        Path report = Path.of("target", "h2spec", (tls ? "tls" : "h2c") + "-report.xml");
        Files.deleteIfExists(report);
        List<String> command = new ArrayList<>(List.of(binary.toAbsolutePath().toString(), "-h", "127.0.0.1",
                "-p", Integer.toString(port), "-P", "/health", "-o", "3", "-j", report.toAbsolutePath().toString()));
        String only = System.getProperty("h2spec.only");
        if (only != null) {
            command.addAll(List.of(only.split(" ")));
        }
        if (tls) {
            command.add("-t");
            command.add("-k");
        }
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        Thread pump = Thread.ofPlatform().daemon().start(() -> {
            try {
                p.getInputStream().transferTo(output);
            } catch (IOException ignored) {
                // the process ended
            }
        });
        boolean ended = p.waitFor(240, TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly();
        }
        pump.join(5_000);
        String text = output.toString(StandardCharsets.UTF_8);
        assertThat(ended).as("h2spec finished in time:\n%s", text).isTrue();
        assertThat(report).as("h2spec report; output:\n%s", text).exists();
        String xml = Files.readString(report);
        Matcher summary = Pattern.compile("(\\d+) tests, (\\d+) passed, (\\d+) skipped, (\\d+) failed").matcher(text);
        assertThat(summary.find()).as("summary in:\n%s", text).isTrue();
        List<String> failed = failedCases(xml);
        List<String> unexpected = failed.stream().filter(id -> !exclusions.containsKey(id)).toList();
        assertThat(unexpected).as("h2spec failures not in h2spec-exclusions.txt (%s):\n%s", tls ? "TLS" : "h2c", text)
                .isEmpty();
        assertThat(Integer.parseInt(summary.group(1))).isEqualTo(only == null ? 145 : Integer.parseInt(summary.group(1)));
        assertThat(failed.size()).as("failures in the report vs the summary:\n%s", text)
                .isEqualTo(Integer.parseInt(summary.group(4)));
        assertThat(Integer.parseInt(summary.group(2)) + failed.size()).as("passed + failed in:\n%s", text)
                .isEqualTo(Integer.parseInt(summary.group(1)));
    }

    /** Failed cases as "section/number", e.g. "http2/6.9.1/2", from h2spec's JUnit report. */
    private static List<String> failedCases(String xml) {
        List<String> failed = new ArrayList<>();
        Matcher suite = Pattern.compile("<testsuite [^>]*package=\"([^\"]*)\"[^>]*>(.*?)</testsuite>", Pattern.DOTALL).matcher(xml);
        while (suite.find()) {
            Matcher testcase = Pattern.compile("<testcase [^>]*>(.*?)</testcase>|<testcase [^>]*/>", Pattern.DOTALL)
                    .matcher(suite.group(2));
            int n = 0;
            while (testcase.find()) {
                n++;
                if (testcase.group(1) != null
                        && (testcase.group(1).contains("<failure") || testcase.group(1).contains("<error"))) {
                    failed.add(suite.group(1) + "/" + n);
                }
            }
        }
        return failed;
    }
}
