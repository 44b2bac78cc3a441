package dev.tern.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.tern.protocol.Json;
import dev.tern.testing.TestCa;

import org.junit.jupiter.api.Test;

import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * testssl.sh scans {@code tern serve --tls} serving a certificate of a test CA, with HSTS and OCSP stapling on, and
 * finds nothing but what the test set-up explains. The scan is bounded to the checks that tell about the server's
 * configuration (protocols, server defaults with the certificate and stapling, HTTP headers, vulnerabilities), not
 * the per-cipher enumeration or client simulation, which take many minutes and only restate the cipher list.
 */
class TestsslTest {
    private static final String INSTALL = "testssl.sh is missing: run bin/install-testssl.sh";

    /** Findings above OK/INFO that the test set-up explains, by id, with why. */
    private static final Map<String, String> EXPLAINED = Map.of(
            "engine_problem", "about the scanning machine: its openssl has no GOST engine",
            "DNS_CAArecord", "a CAA record is published in DNS; the test serves 127.0.0.1, which has no DNS name");

    @Test
    void testsslFindsNothingButWhatTheTestCaExplainsAndSeesStaplingAndHsts() throws Exception {
        try (TestCa ca = TestCa.createWithOcspResponder("Tern testssl CA")) {
            TestCa.Issued certificate = ca.server("localhost");
            try (TernProcess tern = TernProcess.http("user-directory", "--tls",
                    "--cert", ca.chain(certificate).toString(), "--key", certificate.key().toString(),
                    "--tls-ocsp-stapling", "--hsts", "8760h")) {
                String base = tern.url().replaceFirst("/mcp$", "");
                awaitStapling(ca, base);
                List<JsonNode> findings = scan(ca, base + "/health");
                Map<String, String> byId = new LinkedHashMap<>();
                List<String> unexplained = new ArrayList<>();
                for (JsonNode f : findings) {
                    String id = f.path("id").asString();
                    String severity = f.path("severity").asString();
                    byId.put(id, severity + " " + f.path("finding").asString());
                    if (!List.of("OK", "INFO").contains(severity) && !EXPLAINED.containsKey(id)) {
                        unexplained.add(id + " " + severity + ": " + f.path("finding").asString());
                    }
                }
                assertThat(unexplained).as("findings beyond those the test set-up explains").isEmpty();
                assertThat(byId.get("X-Content-Type-Options")).as("security headers").isEqualTo("OK nosniff");
                assertThat(byId.get("OCSP_stapling")).as("OCSP stapling").contains("offered")
                        .doesNotContain("not offered");
                assertThat(byId.get("HSTS_time")).as("HSTS").startsWith("OK");
                assertThat(byId.get("TLS1_3")).as("TLS 1.3").contains("offered").doesNotContain("not offered");
                for (String old : List.of("SSLv2", "SSLv3", "TLS1", "TLS1_1")) {
                    assertThat(byId.get(old)).as(old).contains("not offered");
                }
                assertThat(byId.get("cert_chain_of_trust")).as("chain of trust").startsWith("OK");
            }
        }
    }

    /** Waits until a handshake carries the stapled response (the server fetches it once it has started). */
    private static void awaitStapling(TestCa ca, String base) throws Exception {
        String port = base.substring(base.lastIndexOf(':') + 1);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String output = "";
        while (System.nanoTime() < deadline && !output.contains("OCSP Response Status: successful")) {
            Process p = new ProcessBuilder("openssl", "s_client", "-connect", "127.0.0.1:" + port, "-status",
                    "-CAfile", ca.certificate().toString()).redirectErrorStream(true).start();
            p.getOutputStream().close();
            output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(10, TimeUnit.SECONDS);
            Thread.sleep(200);
        }
        assertThat(output).as("a stapled OCSP response within 30 s").contains("OCSP Response Status: successful");
    }

    /** Runs testssl.sh's configuration checks against {@code url} and returns its findings (its flat JSON). */
    private static List<JsonNode> scan(TestCa ca, String url) throws IOException, InterruptedException {
        Path json = ca.dir().resolve("testssl.json");
        Path log = ca.dir().resolve("testssl.log");
        List<String> command = List.of("testssl", "--quiet", "--color", "0", "--warnings", "off", "--nodns", "min",
                "--add-ca", ca.certificate().toString(), "--jsonfile", json.toString(),
                "--protocols", "--server-defaults", "--headers", "--vulnerable", url);
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        } catch (IOException e) {
            throw new IllegalStateException(INSTALL, e);
        }
        try {
            assertThat(p.waitFor(10, TimeUnit.MINUTES)).as("testssl.sh finished within 10 minutes").isTrue();
        } finally {
            p.destroyForcibly();
        }
        assertThat(json).as("testssl.sh's JSON; its output:\n%s", Files.exists(log) ? Files.readString(log) : "")
                .exists();
        List<JsonNode> findings = new ArrayList<>();
        Json.mapper().readTree(Files.readString(json)).forEach(findings::add);
        assertThat(findings).as("testssl.sh findings").isNotEmpty();
        return findings;
    }
}
