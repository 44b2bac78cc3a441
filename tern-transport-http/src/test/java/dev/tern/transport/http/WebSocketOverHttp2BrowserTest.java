package dev.tern.transport.http;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real headless Chromium, an independent client: a page loaded over TLS h2 opens
 * {@code new WebSocket('wss://127.0.0.1:port/mcp/ws', 'mcp')}, which Chromium puts on the page's HTTP/2 connection
 * with an RFC 8441 extended CONNECT once the server's settings allow it; the server counts it as an HTTP/2 stream.
 */
class WebSocketOverHttp2BrowserTest {
    @TempDir
    Path dir;

    @Test
    void chromiumOpensItsWebSocketOnTheHttp2ConnectionOfThePage() throws Exception {
        String chromium = chromiumBinary();
        try (Served served = new Served(b -> b.tls(t -> t.selfSigned())
                .nonBlockingRoute("GET", "/page", "A page that calls get_user over a WebSocket",
                        request -> RouteResponse.of(200, "text/html; charset=utf-8", page().getBytes(
                                StandardCharsets.UTF_8)))
                .route("GET", "/wait", "Answers after a while", request -> {
                    Thread.sleep(200);
                    return RouteResponse.json(java.util.Map.of());
                }))) {
            String dom = chromium(chromium, "https://127.0.0.1:" + served.port() + "/page");
            assertThat(dom).as(dom).contains("<p id=\"state\">open</p>")
                    .contains("<p id=\"protocol\">mcp</p>")
                    .containsPattern("<p id=\"answer\">[^<]*user7[^<]*</p>");
            assertThat(served.transport.webSocketStreamsOpened()).as("WebSockets opened on HTTP/2 streams")
                    .isEqualTo(1);
        }
    }

    /** Opens the WebSocket on the page's origin, calls get_user and writes what happened into the page. */
    private static String page() {
        return """
                <!doctype html>
                <html><body>
                <p id="state">loading</p><p id="protocol"></p><p id="answer"></p>
                <script>
                const ws = new WebSocket('wss://' + location.host + '/mcp/ws', 'mcp');
                ws.onopen = () => {
                  document.getElementById('state').textContent = 'open';
                  document.getElementById('protocol').textContent = ws.protocol;
                  ws.send(JSON.stringify({jsonrpc: '2.0', id: 1, method: 'tools/call', params: {
                    name: 'get_user', arguments: {id: '7'}, _meta: {
                      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                      'io.modelcontextprotocol/clientCapabilities': {}}}}));
                };
                let done = false;
                ws.onmessage = e => { document.getElementById('answer').textContent = e.data; done = true; };
                ws.onerror = () => { document.getElementById('state').textContent = 'error'; done = true; };
                // Headless Chromium's virtual time stands still while a fetch is pending, not while a WebSocket is
                // open: these keep the page from being dumped before the answer has arrived.
                (async () => { for (let i = 0; i < 50 && !done; i++) { await fetch('/wait'); } })();
                </script>
                </body></html>
                """;
    }

    private String chromium(String binary, String url) throws Exception {
        List<String> command = new ArrayList<>(List.of(binary, "--headless", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--disable-extensions", "--disable-dev-shm-usage",
                "--user-data-dir=" + dir.resolve("profile"), "--ignore-certificate-errors",
                "--virtual-time-budget=5000", "--dump-dom", url));
        Path out = dir.resolve("chromium.out");
        Path err = dir.resolve("chromium.err");
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            if (!p.waitFor(90, TimeUnit.SECONDS)) {
                throw new AssertionError("chromium did not finish in 90 s; stderr:\n" + Files.readString(err));
            }
            assertThat(p.exitValue()).as(Files.readString(err)).isZero();
            return Files.readString(out);
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** Chromium: TERN_CHROMIUM, or chromium on the PATH; fails naming the script that installs it. */
    private static String chromiumBinary() {
        String configured = System.getenv("TERN_CHROMIUM");
        if (configured != null && Files.isExecutable(Path.of(configured))) {
            return configured;
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            for (String name : List.of("chromium", "chromium-browser")) {
                Path candidate = Path.of(dir, name);
                if (Files.isExecutable(candidate)) {
                    return candidate.toString();
                }
            }
        }
        throw new AssertionError("No Chromium found: run bin/install-chromium.sh (or set TERN_CHROMIUM)");
    }
}
