package dev.tern.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.tern.examples.Examples;
import dev.tern.protocol.Json;
import dev.tern.server.McpServer;
import dev.tern.transport.http.HttpServerTransport;

import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code tern call} against the user directory over HTTP/1.1, h2c, TLS h2 and stdio. */
class CallCommandTest {
    private static McpServer server;
    private static HttpServerTransport clear;
    private static HttpServerTransport tls;

    record Run(int exit, String out, String err) {
        JsonNode json() {
            return Json.mapper().readTree(out);
        }

        /** The names of the listed items (tools, prompts). */
        List<String> names() {
            List<String> names = new java.util.ArrayList<>();
            json().forEach(item -> names.add(item.path("name").asString()));
            return names;
        }
    }

    @BeforeAll
    static void start() throws InterruptedException {
        server = Examples.create(Examples.DEFAULT);
        clear = HttpServerTransport.builder(server).host("127.0.0.1").port(0).build().start();
        tls = HttpServerTransport.builder(server).host("127.0.0.1").port(0).tls(t -> t.selfSigned()).build().start();
    }

    @AfterAll
    static void stop() {
        clear.close();
        tls.close();
        server.close();
    }

    private static synchronized Run tern(String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
            int exit = Main.run(Map.of(), args);
            return new Run(exit, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }

    private static String url() {
        return "http://127.0.0.1:" + clear.port() + "/mcp";
    }

    @Test
    void listsToolsCallsOneAndReadsAResource() {
        Run tools = tern("call", "--url", url(), "tools");
        assertThat(tools.exit()).as(tools.err()).isZero();
        assertThat(tools.names()).contains("get_user", "search_users");

        Run user = tern("call", "--url", url(), "--http", "h2c", "--era", "legacy", "tool", "get_user", "{\"id\":\"7\"}");
        assertThat(user.exit()).as(user.err()).isZero();
        assertThat(user.json().path("structuredContent").path("id").asString()).isEqualTo("7");
        assertThat(user.out()).contains("\n  ");

        Run stats = tern("call", "--url", url(), "resource", "users://stats");
        assertThat(stats.exit()).as(stats.err()).isZero();
        assertThat(stats.json().path("contents").get(0).path("uri").asString()).isEqualTo("users://stats");

        Run prompt = tern("call", "--url", url(), "prompt", "summarize_user", "{\"id\":\"7\"}");
        assertThat(prompt.exit()).as(prompt.err()).isZero();
        assertThat(prompt.json().path("messages")).isNotEmpty();
    }

    @Test
    void speaksWebSocketForWsAndWssUrls() {
        Run tools = tern("call", "--url", clear.webSocketUrl(), "tools");
        assertThat(tools.exit()).as(tools.err()).isZero();
        assertThat(tools.names()).contains("get_user", "search_users");

        Run user = tern("call", "--url", "ws://127.0.0.1:" + clear.port(), "--era", "legacy", "tool", "get_user",
                "{\"id\":\"7\"}");
        assertThat(user.exit()).as(user.err()).isZero();
        assertThat(user.json().path("structuredContent").path("id").asString()).isEqualTo("7");

        Run secure = tern("call", "--url", tls.webSocketUrl(), "--insecure", "tool", "get_user", "{\"id\":\"3\"}");
        assertThat(secure.exit()).as(secure.err()).isZero();
        assertThat(secure.json().path("structuredContent").path("id").asString()).isEqualTo("3");

        Run onHttp2 = tern("call", "--url", clear.webSocketUrl(), "--http", "h2c", "tools");
        assertThat(onHttp2.exit()).as(onHttp2.err()).isZero();
        assertThat(onHttp2.names()).contains("get_user", "search_users");
        Run secureOnHttp2 = tern("call", "--url", tls.webSocketUrl(), "--insecure", "--http", "h2", "tool",
                "get_user", "{\"id\":\"4\"}");
        assertThat(secureOnHttp2.exit()).as(secureOnHttp2.err()).isZero();
        assertThat(secureOnHttp2.json().path("structuredContent").path("id").asString()).isEqualTo("4");

        Run withHttp = tern("call", "--url", clear.webSocketUrl(), "--http", "h2", "tools");
        assertThat(withHttp.exit()).isEqualTo(2);
        assertThat(withHttp.err()).contains("--http H2 with ws://");
    }

    @Test
    void errorsGoToStderrWithANonZeroExit() {
        Run unknown = tern("call", "--url", url(), "tool", "no_such_tool", "{}");
        assertThat(unknown.exit()).isEqualTo(1);
        assertThat(unknown.out()).isEmpty();
        assertThat(unknown.err()).contains("tern call: error -32602");

        Run badJson = tern("call", "--url", url(), "tool", "get_user", "{not json");
        assertThat(badJson.exit()).isEqualTo(2);
        assertThat(badJson.err()).contains("not valid JSON");

        Run badAction = tern("call", "--url", url(), "bogus");
        assertThat(badAction.exit()).isEqualTo(2);
        assertThat(badAction.err()).contains("unknown action 'bogus'");

        Run noServer = tern("call", "tools");
        assertThat(noServer.exit()).isEqualTo(2);
        assertThat(noServer.err()).contains("--url");
    }

    @Test
    void tlsNeedsInsecureForASelfSignedCertificate() {
        String https = "https://127.0.0.1:" + tls.port() + "/mcp";
        Run trusted = tern("call", "--url", https, "--insecure", "tool", "get_user", "{\"id\":\"3\"}");
        assertThat(trusted.exit()).as(trusted.err()).isZero();
        assertThat(trusted.json().path("structuredContent").path("id").asString()).isEqualTo("3");

        Run untrusted = tern("call", "--url", https, "--timeout", "PT10S", "tools");
        assertThat(untrusted.exit()).isEqualTo(1);
        assertThat(untrusted.err()).contains("tern call: no response to server/discover from https://127.0.0.1:").contains("cannot connect")
                .contains("certification path");
        assertThat(untrusted.err().lines().filter(line -> line.startsWith("tern call:")))
                .singleElement().asString().contains("certification path").contains("not trusted: give --ca FILE")
                .contains("or --insecure");
    }

    @Test
    void caTrustsTheCertificatesOfAPemFile(@TempDir Path dir) throws Exception {
        Path cert = dir.resolve("cert.pem");
        Path key = dir.resolve("key.pem");
        writeCertificateAndKey(cert, key);
        HttpServerTransport own = HttpServerTransport.builder(server).host("127.0.0.1").port(0).tls(t -> t.certificate(cert, key)).build()
                .start();
        try {
            String https = "https://127.0.0.1:" + own.port() + "/mcp";
            Run trusted = tern("call", "--url", https, "--ca", cert.toString(), "tool", "get_user", "{\"id\":\"4\"}");
            assertThat(trusted.exit()).as(trusted.err()).isZero();
            assertThat(trusted.json().path("structuredContent").path("id").asString()).isEqualTo("4");

            Run missing = tern("call", "--url", https, "--ca", dir.resolve("absent.pem").toString(), "tools");
            assertThat(missing.exit()).isEqualTo(2);
            assertThat(missing.err()).contains("--ca ").contains("absent.pem: no such readable file");

            Run both = tern("call", "--url", https, "--ca", cert.toString(), "--insecure", "tools");
            assertThat(both.exit()).isEqualTo(2);
            assertThat(both.err()).contains("give it or --ca, not both");
        } finally {
            own.close();
        }
    }

    /** A self-signed EC certificate for 127.0.0.1 and its PKCS#8 key, both PEM, made with the JDK's keytool. */
    private static void writeCertificateAndKey(Path cert, Path key) throws Exception {
        Path store = cert.resolveSibling("store.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "t", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
                "-ext", "SAN=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString(),
                "-storepass", "changeit").redirectErrorStream(true).start();
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(keytool.waitFor()).as(output).isZero();
        java.security.KeyStore keys = java.security.KeyStore.getInstance("PKCS12");
        try (var in = java.nio.file.Files.newInputStream(store)) {
            keys.load(in, "changeit".toCharArray());
        }
        java.util.Base64.Encoder base64 = java.util.Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII));
        java.nio.file.Files.writeString(cert, "-----BEGIN CERTIFICATE-----\n"
                + base64.encodeToString(keys.getCertificate("t").getEncoded()) + "\n-----END CERTIFICATE-----\n");
        java.nio.file.Files.writeString(key, "-----BEGIN PRIVATE KEY-----\n"
                + base64.encodeToString(keys.getKey("t", "changeit".toCharArray()).getEncoded())
                + "\n-----END PRIVATE KEY-----\n");
    }

    @Test
    void aUrlWithoutAPathReachesTheMcpEndpoint() {
        Run tools = tern("call", "--url", "http://127.0.0.1:" + clear.port(), "tools");
        assertThat(tools.exit()).as(tools.err()).isZero();
        assertThat(tools.names()).contains("get_user");

        Run wrongPath = tern("call", "--url", "http://127.0.0.1:" + clear.port() + "/nope", "--era", "legacy", "tools");
        assertThat(wrongPath.exit()).isEqualTo(1);
        assertThat(wrongPath.err()).contains("HTTP 404").contains("check the URL's path");
    }

    @Test
    void theTimeoutTakesTheSameDurationsAsEveryOtherOption() {
        for (String timeout : List.of("5s", "500ms", "2m", "PT5S")) {
            Run ping = tern("call", "--url", url(), "--timeout", timeout, "ping");
            assertThat(ping.exit()).as(timeout + ": " + ping.err()).isZero();
        }
        Run bad = tern("call", "--url", url(), "--timeout", "5 seconds", "ping");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).contains("Invalid value for option '--timeout': '5 seconds' is not a duration (e.g. 5s, "
                + "500ms, 2m or PT5S)").doesNotContain("Exception");
    }

    @Test
    void stdioStartsTheServer() {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String command = "'" + java + "' -cp '" + System.getProperty("java.class.path") + "' dev.tern.cli.Main serve --stdio";
        Run tools = tern("call", "--stdio", command, "tools");
        assertThat(tools.exit()).as(tools.err()).isZero();
        assertThat(tools.names()).contains("get_user");
        Run modern = tern("call", "--stdio", command, "--era", "modern", "resource", "user://5");
        assertThat(modern.exit()).as(modern.err()).isZero();
        assertThat(modern.json().path("contents").get(0).path("text").asString()).contains("\"5\"");
    }

    @Test
    void commandLineSplitting() {
        assertThat(CallCommand.split("a  'b c' \"d'e\" f")).isEqualTo(List.of("a", "b c", "d'e", "f"));
    }
}
