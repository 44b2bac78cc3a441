package dev.tern.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.tern.protocol.Json;

import tools.jackson.databind.JsonNode;

/**
 * SECURITY.md rows 1–19, 24, 25, 41 and 48c over stdio, against a real process: each bad input gets its exact answer
 * (or none where none is due), and the process keeps serving a well-behaved client afterwards.
 */
class StdioBadInputTest {
    private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":\"init\",\"method\":\"initialize\",\"params\":"
            + "{\"protocolVersion\":\"%s\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";

    private TernProcess process;
    private OutputStream stdin;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final AtomicLong ids = new AtomicLong(1000);

    @BeforeEach
    void start() throws IOException {
        process = TernProcess.main(StdioBadInputServer.class);
        stdin = process.stdin();
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.stdout(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the process ended
            }
        });
    }

    @AfterEach
    void stop() throws InterruptedException {
        process.close();
    }

    // ---------------------------------------------------------------- helpers

    private void send(String line) throws IOException {
        sendBytes((line + "\n").getBytes(StandardCharsets.UTF_8));
    }

    private void sendBytes(byte[] bytes) throws IOException {
        stdin.write(bytes);
        stdin.flush();
    }

    private JsonNode next() throws InterruptedException {
        String line = lines.poll(20, TimeUnit.SECONDS);
        assertThat(line).as("a line from the server; stderr:%n%s", process.stderr()).isNotNull();
        JsonNode node = Json.mapper().readTree(line);
        assertThat(node.path("jsonrpc").asString()).as("only JSON-RPC on stdout: %s", line).isEqualTo("2.0");
        return node;
    }

    private JsonNode error(String line) throws Exception {
        send(line);
        JsonNode reply = next();
        assertThat(reply.has("error")).as("an error for %s, got %s", abbreviate(line), reply).isTrue();
        return reply;
    }

    private void assertError(String line, int code, boolean nullId) throws Exception {
        JsonNode reply = error(line);
        assertThat(reply.path("error").path("code").asInt()).as("code for %s: %s", abbreviate(line), reply).isEqualTo(code);
        if (nullId) {
            assertThat(reply.get("id").isNull()).as("id null in %s", reply).isTrue();
        }
    }

    /** Proves nothing was answered since the last read, and that the process still serves: a ping comes back next. */
    private void assertStillServingAndNothingElseSent() throws Exception {
        long id = ids.incrementAndGet();
        send("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"ping\"}");
        JsonNode reply = next();
        assertThat(reply.path("id").asLong()).as("the next line answers the ping: %s", reply).isEqualTo(id);
        assertThat(reply.has("result")).isTrue();
    }

    private JsonNode call(String tool, String arguments) throws Exception {
        long id = ids.incrementAndGet();
        send("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
                + "\",\"arguments\":" + arguments + "}}");
        JsonNode reply = next();
        assertThat(reply.path("id").asLong()).isEqualTo(id);
        return reply;
    }

    private void initialize(String version) throws Exception {
        send(INIT.formatted(version));
        assertThat(next().path("result").path("protocolVersion").asString()).isEqualTo(version);
        send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    }

    private static String abbreviate(String s) {
        return s.length() > 80 ? s.substring(0, 80) + "…" : s;
    }

    // ---------------------------------------------------------------- A. bytes and JSON

    @Test
    void malformedJsonIsAParseErrorAndReadingGoesOn() throws Exception {
        initialize("2025-11-25");
        assertError("{\"jsonrpc\":\"2.0\",", -32700, true);
        assertError("not json at all", -32700, true);
        assertError("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}{\"x\":1}", -32700, true);
        assertError("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} x", -32700, true);
        assertError("[1, 2,]", -32700, true);
        assertError("{'single':'quotes'}", -32700, true);
        assertError("{\"a\":NaN}", -32700, true);
        assertError("{\"a\":01}", -32700, true);
        send("{\"jsonrpc\":\"2.0\",");
        send("  \"id\": 5,");
        send("  \"method\": \"ping\"}");
        for (int i = 0; i < 3; i++) {
            assertThat(next().path("error").path("code").asInt()).as("one -32700 per line of pretty JSON").isEqualTo(-32700);
        }
        assertStillServingAndNothingElseSent();
    }

    @Test
    void encodingOtherThanUtf8IsRefused() throws Exception {
        initialize("2025-11-25");
        String ping = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"_meta\":{\"x\":\"%s\"}}}";
        byte[] truncatedSequence = ping.formatted("X").getBytes(StandardCharsets.UTF_8);
        truncatedSequence[truncatedSequence.length - 6] = (byte) 0xC3;
        byte[][] bad = {
            concat(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, ping.formatted("bom").getBytes(StandardCharsets.UTF_8)),
            ping.formatted("a").getBytes(StandardCharsets.UTF_16LE),
            truncatedSequence,
        };
        for (byte[] b : bad) {
            sendBytes(concat(b, new byte[] {'\n'}));
            assertThat(next().path("error").path("code").asInt()).isEqualTo(-32700);
        }
        assertError(ping.formatted("\\uD800"), -32700, true);
        assertError(ping.formatted("\\uDC00x"), -32700, true);
        send(ping.formatted(""));
        assertThat(next().has("result")).isTrue();
        byte[] rawSurrogate = ping.formatted("Z").getBytes(StandardCharsets.UTF_8);
        byte[] withSurrogate = new byte[rawSurrogate.length + 2];
        int z = new String(rawSurrogate, StandardCharsets.UTF_8).indexOf('Z');
        System.arraycopy(rawSurrogate, 0, withSurrogate, 0, z);
        withSurrogate[z] = (byte) 0xED;
        withSurrogate[z + 1] = (byte) 0xA0;
        withSurrogate[z + 2] = (byte) 0x80;
        System.arraycopy(rawSurrogate, z + 1, withSurrogate, z + 3, rawSurrogate.length - z - 1);
        sendBytes(concat(withSurrogate, new byte[] {'\n'}));
        assertThat(next().path("error").path("code").asInt()).isEqualTo(-32700);
        send(ping.formatted("\\uD83D\\uDE00"));
        assertThat(next().has("result")).as("a surrogate pair is fine").isTrue();
    }

    @Test
    void boundsOnDepthNumbersStringsAndLinesHold() throws Exception {
        initialize("2025-11-25");
        assertError("[".repeat(100_000), -32700, true);
        assertError("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"n\":" + "9".repeat(100_000) + "}}", -32700, true);
        JsonNode bigExponent = call("get_user", "{\"id\":1e999999999}");
        assertThat(bigExponent.path("result").path("isError").asBoolean()).isTrue();
        assertError("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"s\":\"" + "a".repeat(2 * 1024 * 1024) + "\"}}",
                -32602, true);
        assertError("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"s\":\"" + "a".repeat(5 * 1024 * 1024) + "\"}}",
                -32600, true);
        assertStillServingAndNothingElseSent();
        assertThat(call("get_user", "{\"id\":\"7\"}").path("result").path("structuredContent").path("id").asString())
                .isEqualTo("7");
    }

    @Test
    void blankLinesAreIgnoredAndCrlfIsAccepted() throws Exception {
        send(INIT.formatted("2025-11-25").replace("\n", "") + "\r");
        assertThat(next().path("result").path("protocolVersion").asString()).isEqualTo("2025-11-25");
        send("");
        send("   ");
        sendBytes("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\r\n".getBytes(StandardCharsets.UTF_8));
        assertThat(next().path("id").asInt()).isEqualTo(7);
    }

    // ---------------------------------------------------------------- B. envelope and lifecycle

    @Test
    void duplicateKeysAreInvalidRequests() throws Exception {
        initialize("2025-11-25");
        assertError("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"method\":\"tools/call\"}", -32600, true);
        assertError("{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"ping\"}", -32600, true);
        assertStillServingAndNothingElseSent();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"id\":1,\"method\":\"ping\"}",
        "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}",
        "{\"jsonrpc\":2.0,\"id\":1,\"method\":\"ping\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":[1],\"method\":\"ping\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}",
        "\"just a string\"",
        "42"})
    void malformedEnvelopesAreInvalidRequests(String line) throws Exception {
        initialize("2025-11-25");
        JsonNode reply = error(line);
        assertThat(reply.path("error").path("code").asInt()).isEqualTo(-32600);
        assertStillServingAndNothingElseSent();
    }

    @Test
    void paramsMustBeAnObject() throws Exception {
        initialize("2025-11-25");
        JsonNode reply = error("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\",\"params\":[1,2]}");
        assertThat(reply.path("error").path("code").asInt()).isEqualTo(-32602);
        assertThat(reply.path("id").asInt()).isEqualTo(9);
        send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":[1]}");
        send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/no_such_thing\",\"params\":{\"x\":1}}");
        send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":424242}}");
        assertStillServingAndNothingElseSent();
    }

    @Test
    void unknownMethodsAreMethodNotFound() throws Exception {
        initialize("2025-11-25");
        JsonNode reply = error("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"no/such/method\"}");
        assertThat(reply.path("error").path("code").asInt()).isEqualTo(-32601);
        assertThat(reply.path("id").asInt()).isEqualTo(3);
    }

    @Test
    void batchesAreRefusedWholeExceptIn20250326() throws Exception {
        String batch = "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"bump\"}},"
                + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"bump\"}}]";
        assertError(batch, -32600, true);
        initialize("2025-11-25");
        assertError(batch, -32600, true);
        assertThat(call("bumps", "{}").path("result").path("structuredContent").path("value").asInt())
                .as("nothing of a refused batch ran").isZero();
    }

    @Test
    void batchesAreAnsweredAsAnArrayIn20250326() throws Exception {
        initialize("2025-03-26");
        send("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"bump\"}},"
                + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"},"
                + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"bump\"}},"
                + "{\"jsonrpc\":\"1.0\",\"id\":3,\"method\":\"ping\"}]");
        String line = lines.poll(20, TimeUnit.SECONDS);
        JsonNode array = Json.mapper().readTree(line);
        assertThat(array.isArray()).as(line).isTrue();
        assertThat(array).hasSize(3);
        assertThat(call("bumps", "{}").path("result").path("structuredContent").path("value").asInt()).isEqualTo(2);
    }

    @Test
    void responsesToUnknownIdsAreIgnored() throws Exception {
        initialize("2025-11-25");
        send("{\"jsonrpc\":\"2.0\",\"id\":777,\"result\":{}}");
        send("{\"jsonrpc\":\"2.0\",\"id\":778,\"error\":{\"code\":-1,\"message\":\"x\"}}");
        assertStillServingAndNothingElseSent();
    }

    @Test
    void aReusedInFlightIdIsRefusedAndEachAnswerReachesItsRequest() throws Exception {
        initialize("2025-11-25");
        send("{\"jsonrpc\":\"2.0\",\"id\":\"same\",\"method\":\"tools/call\",\"params\":{\"name\":\"wait_cancel\",\"arguments\":{}}}");
        JsonNode reply = error("{\"jsonrpc\":\"2.0\",\"id\":\"same\",\"method\":\"ping\"}");
        assertThat(reply.path("error").path("code").asInt()).isEqualTo(-32600);
        send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"same\"}}");
        assertStillServingAndNothingElseSent();
    }

    @Test
    void lifecycleErrors() throws Exception {
        assertError("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", -32600, false);
        send(INIT.formatted("1999-01-01"));
        assertThat(next().path("result").path("protocolVersion").asString()).as("counter-offer").isEqualTo("2025-11-25");
        assertError(INIT.formatted("2025-11-25"), -32600, false);
        JsonNode modern = error("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\",\"params\":{\"_meta\":"
                + "{\"io.modelcontextprotocol/protocolVersion\":\"1999-01-01\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
        assertThat(modern.path("error").path("code").asInt()).isEqualTo(-32022);
        assertThat(modern.path("error").path("data").path("supported").toString()).contains("2026-07-28", "2025-11-25");
        assertThat(modern.path("error").path("data").path("requested").asString()).isEqualTo("1999-01-01");
    }

    // ---------------------------------------------------------------- C. tools

    @Test
    void failingAndHangingToolsAreContained() throws Exception {
        initialize("2025-11-25");
        JsonNode boom = call("boom", "{}");
        assertThat(boom.path("result").path("isError").asBoolean()).isTrue();
        String text = boom.path("result").path("content").get(0).path("text").asString();
        assertThat(text).doesNotContain("hunter2").doesNotContain("at dev.tern").doesNotContain("Exception");
        JsonNode hang = call("hang", "{}");
        assertThat(hang.path("result").path("isError").asBoolean()).isTrue();
        assertThat(hang.path("result").path("content").get(0).path("text").asString()).contains("did not finish");
        assertStillServingAndNothingElseSent();
    }

    @Test
    void cancellationStopsTheToolAndNothingMoreIsSentForIt() throws Exception {
        initialize("2025-11-25");
        send("{\"jsonrpc\":\"2.0\",\"id\":\"c1\",\"method\":\"tools/call\",\"params\":{\"name\":\"wait_cancel\",\"arguments\":{}}}");
        Thread.sleep(200);
        send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"c1\",\"reason\":\"user\"}}");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int seen = 0;
        while (seen == 0 && System.nanoTime() < deadline) {
            JsonNode reply = call("cancellations", "{}");
            seen = reply.path("result").path("structuredContent").path("value").asInt();
        }
        assertThat(seen).isEqualTo(1);
        assertStillServingAndNothingElseSent();
    }

    // ---------------------------------------------------------------- 48c and 41

    @Test
    void anOversizedLineGetsOneErrorAndTheNextLineIsServed() throws Exception {
        initialize("2025-11-25");
        byte[] huge = new byte[5 * 1024 * 1024];
        java.util.Arrays.fill(huge, (byte) 'x');
        sendBytes(huge);
        sendBytes("\n".getBytes(StandardCharsets.UTF_8));
        assertThat(next().path("error").path("code").asInt()).isEqualTo(-32600);
        assertStillServingAndNothingElseSent();
    }

    @Test
    void endOfInputEndsTheProcess() throws Exception {
        initialize("2025-11-25");
        stdin.close();
        assertThat(process.waitFor(10, TimeUnit.SECONDS)).isZero();
    }

    @Test
    void sigtermEndsTheProcessWithinTheDeadline() throws Exception {
        initialize("2025-11-25");
        send("{\"jsonrpc\":\"2.0\",\"id\":\"slow\",\"method\":\"tools/call\",\"params\":{\"name\":\"wait_cancel\",\"arguments\":{}}}");
        Thread.sleep(200);
        process.process().destroy();
        assertThat(process.process().waitFor(10, TimeUnit.SECONDS)).as("exited after SIGTERM").isTrue();
    }

    @Test
    void sigtermEndsAnOpenListenWithItsResultBeforeTheProcessExits() throws Exception {
        send("{\"jsonrpc\":\"2.0\",\"id\":\"watch\",\"method\":\"subscriptions/listen\",\"params\":{"
                + "\"notifications\":{\"toolsListChanged\":true},\"_meta\":{"
                + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":{},"
                + "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}}");
        assertThat(next().path("method").asString()).isEqualTo("notifications/subscriptions/acknowledged");
        // SIGTERM without closing the pipes (Process.destroy() would close them before the last line is read)
        process.process().toHandle().destroy();
        JsonNode end = next();
        assertThat(end.path("id").asString()).isEqualTo("watch");
        assertThat(end.path("result").path("resultType").asString()).isEqualTo("complete");
        assertThat(end.path("result").path("_meta").path("io.modelcontextprotocol/subscriptionId").asString())
                .isEqualTo("watch");
        assertThat(process.process().waitFor(10, TimeUnit.SECONDS)).as("exited after SIGTERM").isTrue();
    }

    @Test
    void aBrokenStdoutEndsTheProcessInsteadOfSpinning() throws Exception {
        initialize("2025-11-25");
        process.stdout().close();
        for (int i = 0; i < 50 && process.process().isAlive(); i++) {
            try {
                send("{\"jsonrpc\":\"2.0\",\"id\":" + i + ",\"method\":\"tools/call\",\"params\":{\"name\":\"get_user\","
                        + "\"arguments\":{\"id\":\"1\"}}}");
            } catch (IOException processGone) {
                break;
            }
            Thread.sleep(50);
        }
        assertThat(process.process().waitFor(10, TimeUnit.SECONDS)).as("exited after its stdout broke").isTrue();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(a);
        out.writeBytes(b);
        return out.toByteArray();
    }
}
