package dev.tern.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.tern.protocol.Json;

import tools.jackson.databind.JsonNode;

/**
 * Keeps the peer comparison of {@code bench/peers} honest: the official MCP Java SDK and TypeScript SDK peers are
 * built ({@code bench/peers/build java-sdk typescript}, which does nothing when they are up to date), each is started
 * with {@code bench/peers/start} as {@code bench/peers/run} starts it, and its {@code get_user} answer must be Tern's,
 * byte for byte, for users that cover every variation of the directory (a non-ASCII city, an admin, an inactive
 * user, the last id), with the schemas of {@code bench/peers/shared/tools.json}, which must also still be Tern's.
 * The Quarkus peer is left to {@code bench/peers/run}: its build takes minutes.
 */
class PeersSmokeTest {
    private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(10);
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(2);
    /** 42 is the bench's user; 3 lives in Kraków, 10 is an admin, 13 is inactive, 1000 is the last user. */
    private static final String USER_IDS = "42,3,10,13,1000";

    private static Path root;
    private static Path node;
    private static TernProcess tern;
    private static Path reference;
    private static JsonNode ternSummary;

    @BeforeAll
    static void buildPeersAndAskTern() throws Exception {
        root = NodeTools.root();
        node = NodeTools.node();
        NodeTools.Result build = NodeTools.run(List.of("bash", root.resolve("bench/peers/build").toString(),
                "java-sdk", "typescript"), root, Map.of(), BUILD_TIMEOUT);
        assertThat(build.exitCode()).as("bench/peers/build java-sdk typescript: %s", build.describe()).isZero();

        tern = TernProcess.http("user-directory");
        reference = Files.createTempFile("tern-peers-reference", ".json");
        ternSummary = probe(tern.url(), "modern", "--save", reference.toString());
        assertThat(ternSummary.path("ok").asBoolean()).as("Tern's answers: %s", ternSummary).isTrue();
        assertThat(ternSummary.path("users").asInt()).isEqualTo(5);
        assertThat(ternSummary.path("schemaDifferences").isEmpty())
                .as("bench/peers/shared/tools.json no longer has Tern's get_user schemas: %s", ternSummary)
                .isTrue();
    }

    @AfterAll
    static void stopTern() throws Exception {
        if (tern != null) {
            tern.close();
        }
        if (reference != null) {
            Files.deleteIfExists(reference);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"java-sdk-stateless", "java-sdk-sessions", "typescript-stateless", "typescript-sessions"})
    void peerAnswersGetUserAsTernDoes(String peer) throws Exception {
        int port = freePort();
        NodeTools.Result started = NodeTools.run(List.of("bash", root.resolve("bench/peers/start").toString(), peer,
                Integer.toString(port)), root, Map.of(), RUN_TIMEOUT);
        assertThat(started.exitCode()).as("bench/peers/start %s %d: %s", peer, port, started.describe()).isZero();
        String[] pidAndUrl = started.stdout().strip().split(" ");
        assertThat(pidAndUrl).as(started.stdout()).hasSize(2);
        long pid = Long.parseLong(pidAndUrl[0]);
        String url = pidAndUrl[1];
        assertThat(url).isEqualTo("http://127.0.0.1:" + port + "/mcp");
        assertThat(started.stderr()).contains(peer + " up in ");
        try {
            JsonNode summary = probe(url, "legacy", "--expect", reference.toString());
            assertThat(summary.path("ok").asBoolean()).as("%s: %s", peer, summary).isTrue();
            assertThat(summary.path("users").asInt()).isEqualTo(5);
            assertThat(summary.path("sameAsReference").asBoolean()).as(summary.toString()).isTrue();
            assertThat(summary.path("getUser").path("textBytes").asInt())
                    .isEqualTo(ternSummary.path("getUser").path("textBytes").asInt());
            assertThat(summary.path("schemaDifferences").isEmpty()).as(summary.toString()).isTrue();
            assertThat(summary.path("missingTools").isEmpty()).as("%s lacks tools: %s", peer, summary).isTrue();
            assertThat(summary.path("session").asBoolean()).as(summary.toString()).isEqualTo(peer.endsWith("-sessions"));
        } finally {
            stop(pid);
        }
    }

    /**
     * {@code --keep-session} (for {@code bench/regenerate}'s peers-pinned section, whose wrk sends its calls in the
     * session the probe opened) leaves the session open and says its id; without it the probe deletes its session.
     */
    @Test
    void probeKeepsItsSessionOpenWhenAskedTo() throws Exception {
        JsonNode kept = probe(tern.url(), "legacy", "--keep-session");
        assertThat(kept.path("ok").asBoolean()).as(kept.toString()).isTrue();
        String session = kept.path("sessionId").asString();
        assertThat(session).as(kept.toString()).isNotEmpty();
        assertThat(inSession(session, "POST").statusCode()).isEqualTo(200);
        assertThat(inSession(session, "DELETE").statusCode()).isIn(200, 202, 204);

        JsonNode closed = probe(tern.url(), "legacy");
        assertThat(closed.path("ok").asBoolean()).as(closed.toString()).isTrue();
        assertThat(closed.has("sessionId")).as(closed.toString()).isFalse();
    }

    /** A {@code tools/call} (POST) in the session, or its end (DELETE). */
    private static HttpResponse<String> inSession(String session, String method) throws Exception {
        String call = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\","
                + "\"params\":{\"name\":\"get_user\",\"arguments\":{\"id\":\"42\"}}}";
        try (HttpClient client = HttpClient.newHttpClient()) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(tern.url()))
                    .header("Content-Type", "application/json")
                    .header("Accept", "application/json, text/event-stream")
                    .header("MCP-Protocol-Version", "2025-11-25")
                    .header("Mcp-Session-Id", session)
                    .method(method, method.equals("POST") ? HttpRequest.BodyPublishers.ofString(call)
                            : HttpRequest.BodyPublishers.noBody())
                    .timeout(Duration.ofSeconds(10))
                    .build();
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        }
    }

    /** Runs {@code bench/peers/probe.mjs} and returns the summary it prints. */
    private static JsonNode probe(String url, String era, String... more) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(node.toString(), root.resolve("bench/peers/probe.mjs").toString(),
                "--url", url, "--era", era, "--id", USER_IDS));
        command.addAll(List.of(more));
        NodeTools.Result result = NodeTools.run(command, root, Map.of(), RUN_TIMEOUT);
        String out = result.stdout().strip();
        assertThat(out).as("probe printed nothing: %s", result.describe()).isNotEmpty();
        return Json.mapper().readTree(out.substring(out.lastIndexOf('\n') + 1));
    }

    /**
     * A port nothing listens on, below the kernel's ephemeral range (as {@code bench/peers/run} picks them), so that
     * no outgoing connection or port-0 bind elsewhere can take it before the peer binds it.
     */
    private static int freePort() throws IOException {
        int low = 32768;
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        if (Files.isReadable(range)) {
            low = Integer.parseInt(Files.readString(range).strip().split("\\s+")[0]);
        }
        int first = 20_000;
        int last = Math.max(first + 1_000, low - 1);
        Random random = new Random();
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = first + random.nextInt(last - first + 1);
            try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return socket.getLocalPort();
            } catch (IOException taken) {
                // try another
            }
        }
        throw new IOException("no free port between " + first + " and " + last);
    }

    private static void stop(long pid) throws InterruptedException {
        ProcessHandle process = ProcessHandle.of(pid).orElse(null);
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            process.onExit().get(10, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            process.destroyForcibly();
        }
    }
}
