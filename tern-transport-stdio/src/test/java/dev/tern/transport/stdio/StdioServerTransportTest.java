package dev.tern.transport.stdio;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.tern.protocol.CodecLimits;
import dev.tern.protocol.Json;
import dev.tern.server.Arg;
import dev.tern.server.McpServer;
import dev.tern.server.Tool;

import tools.jackson.databind.JsonNode;

/** The transport in-process: pipelined requests, lines split across reads, limits, large replies, end of input. */
class StdioServerTransportTest {
    private static final String META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
            + "\"io.modelcontextprotocol/clientCapabilities\":{},"
            + "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}";

    public record Echoed(String text) {
    }

    public static class Tools {
        final java.util.concurrent.CountDownLatch slowStarted = new java.util.concurrent.CountDownLatch(1);

        @Tool(description = "Echoes the text")
        public Echoed echo(@Arg(description = "Text") String text) {
            return new Echoed(text);
        }

        @Tool(description = "Echoes the text, on the reading thread", nonBlocking = true)
        public Echoed quickEcho(@Arg(description = "Text") String text) {
            return new Echoed(text);
        }

        @Tool(description = "Answers after millis milliseconds")
        public Echoed slow(@Arg(description = "How long") int millis) throws InterruptedException {
            slowStarted.countDown();
            Thread.sleep(millis);
            return new Echoed("slept " + millis);
        }

        @Tool(description = "Answers with its thread's interrupt flag set, as a handler that swallowed a cancellation")
        public Echoed interrupted() {
            Thread.currentThread().interrupt();
            return new Echoed("interrupted");
        }

        @Tool(description = "A text of n copies of x")
        public Echoed repeat(@Arg(description = "How many") int n) {
            return new Echoed("x".repeat(n));
        }
    }

    private final Tools tools = new Tools();
    private final McpServer server = McpServer.builder().info("t", "1").register(tools).build();
    private final ChunkedInput input = new ChunkedInput();
    private final LineCollector output = new LineCollector();

    @AfterEach
    void closeServer() {
        server.close();
    }

    private static String call(long id, String tool, String arguments) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
                + "\",\"arguments\":" + arguments + "," + META + "}}";
    }

    private CompletableFuture<StdioServerTransport.Outcome> serve(StdioServerTransport.Builder builder) {
        return serve(builder.input(input).output(output).build());
    }

    private static CompletableFuture<StdioServerTransport.Outcome> serve(StdioServerTransport transport) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return transport.serve();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, r -> Thread.ofPlatform().start(r));
    }

    @Test
    void pipelinedRequestsSplitAcrossReadsAreEachAnsweredOnALineOfItsOwn() throws Exception {
        var served = serve(StdioServerTransport.builder(server));
        StringBuilder all = new StringBuilder();
        int calls = 2_000;
        for (int id = 1; id <= calls; id++) {
            all.append(call(id, "echo", "{\"text\":\"t" + id + "\"}")).append(id % 3 == 0 ? "\r\n" : "\n");
            if (id % 100 == 0) {
                all.append("\n  \n");
            }
        }
        byte[] bytes = all.toString().getBytes(StandardCharsets.UTF_8);
        int[] sizes = {1, 7, 333, 4096, 70_000};
        for (int at = 0, k = 0; at < bytes.length; k++) {
            int n = Math.min(sizes[k % sizes.length], bytes.length - at);
            input.add(java.util.Arrays.copyOfRange(bytes, at, at + n));
            at += n;
        }

        List<JsonNode> replies = output.await(calls);
        input.end();

        Set<Long> ids = new TreeSet<>();
        for (JsonNode reply : replies) {
            long id = reply.path("id").asLong();
            ids.add(id);
            assertThat(reply.path("result").path("structuredContent").path("text").asString()).isEqualTo("t" + id);
        }
        assertThat(ids).hasSize(calls).first().isEqualTo(1L);
        assertThat(output.writesEndingMidLine()).isZero();
        assertThat(served.get(10, TimeUnit.SECONDS)).isEqualTo(StdioServerTransport.Outcome.END_OF_INPUT);
    }

    @Test
    void aLineOverTheLimitGetsOneErrorWhetherItArrivesWholeOrInPiecesAndTheNextLineIsServed() throws Exception {
        int limit = 1_000;
        var served = serve(StdioServerTransport.builder(server).limits(CodecLimits.DEFAULT.withMaxMessageBytes(limit)));
        String padded = call(1, "echo", "{\"text\":\"" + "a".repeat(limit) + "\"}");
        input.add((padded + "\n" + call(2, "echo", "{\"text\":\"ok\"}") + "\n").getBytes(StandardCharsets.UTF_8));
        input.add(padded.substring(0, 600).getBytes(StandardCharsets.UTF_8));
        input.add((padded.substring(600) + "\n").getBytes(StandardCharsets.UTF_8));
        String exact = call(4, "echo", "{\"text\":\"" + "b".repeat(limit - call(4, "echo", "{\"text\":\"\"}").length())
                + "\"}");
        assertThat(exact).hasSize(limit);
        input.add((call(3, "echo", "{\"text\":\"ok\"}") + "\n" + exact + "\n").getBytes(StandardCharsets.UTF_8));

        List<JsonNode> replies = output.await(5);
        input.end();

        assertThat(replies.get(0).path("error").path("code").asInt()).isEqualTo(-32600);
        assertThat(replies.get(0).get("id").isNull()).isTrue();
        List<JsonNode> rest = replies.subList(1, 5);
        assertThat(rest).filteredOn(r -> r.has("error")).hasSize(1).allSatisfy(r -> {
            assertThat(r.path("error").path("code").asInt()).isEqualTo(-32600);
            assertThat(r.get("id").isNull()).isTrue();
        });
        assertThat(rest).filteredOn(r -> r.has("result")).extracting(r -> r.path("id").asLong())
                .containsExactlyInAnyOrder(2L, 3L, 4L);
        assertThat(served.get(10, TimeUnit.SECONDS)).isEqualTo(StdioServerTransport.Outcome.END_OF_INPUT);
        assertThat(output.lines(10)).hasSize(5);
    }

    @Test
    void aReplyLargerThanTheWriteBufferGoesOutWholeOnItsLine() throws Exception {
        var served = serve(StdioServerTransport.builder(server));
        input.add((call(1, "repeat", "{\"n\":200000}") + "\n" + call(2, "echo", "{\"text\":\"after\"}") + "\n")
                .getBytes(StandardCharsets.UTF_8));

        List<JsonNode> replies = output.await(2);
        input.end();

        JsonNode large = replies.stream().filter(r -> r.path("id").asLong() == 1).findFirst().orElseThrow();
        assertThat(large.path("result").path("structuredContent").path("text").asString()).hasSize(200_000);
        assertThat(output.writesEndingMidLine()).isZero();
        assertThat(served.get(10, TimeUnit.SECONDS)).isEqualTo(StdioServerTransport.Outcome.END_OF_INPUT);
    }

    @Test
    void stoppingLetsARequestInFlightFinishAndWritesItsReplyBeforeReturning() throws Exception {
        StdioServerTransport transport = StdioServerTransport.builder(server).input(input).output(output)
                .shutdownDeadline(java.time.Duration.ofSeconds(5)).build();
        var served = serve(transport);
        input.add((call(1, "echo", "{\"text\":\"first\"}") + "\n").getBytes(StandardCharsets.UTF_8));
        output.await(1);
        input.add((call(2, "slow", "{\"millis\":300}") + "\n").getBytes(StandardCharsets.UTF_8));
        assertThat(tools.slowStarted.await(10, TimeUnit.SECONDS)).isTrue();

        transport.stop();

        List<String> lines = output.lines(10);
        assertThat(lines).hasSize(2);
        assertThat(Json.mapper().readTree(lines.get(1)).path("result").path("structuredContent").path("text")
                .asString()).isEqualTo("slept 300");
        assertThat(served.get(10, TimeUnit.SECONDS)).isEqualTo(StdioServerTransport.Outcome.STOPPED);
    }

    @Test
    void stoppingEndsAnOpenListenWithItsResultWrittenBeforeReturning() throws Exception {
        StdioServerTransport transport = StdioServerTransport.builder(server).input(input).output(output)
                .shutdownDeadline(java.time.Duration.ofSeconds(5)).build();
        var served = serve(transport);
        input.add(("{\"jsonrpc\":\"2.0\",\"id\":\"l\",\"method\":\"subscriptions/listen\",\"params\":{" + META
                + ",\"notifications\":{\"toolsListChanged\":true}}}\n").getBytes(StandardCharsets.UTF_8));
        assertThat(output.await(1).get(0).path("method").asString()).isEqualTo("notifications/subscriptions/acknowledged");

        transport.stop();

        List<String> lines = output.lines(10);
        assertThat(lines).hasSize(2);
        JsonNode end = Json.mapper().readTree(lines.get(1));
        assertThat(end.path("id").asString()).isEqualTo("l");
        assertThat(end.path("result").path("resultType").asString()).isEqualTo("complete");
        assertThat(end.path("result").path("_meta").path("io.modelcontextprotocol/subscriptionId").asString())
                .isEqualTo("l");
        assertThat(served.get(10, TimeUnit.SECONDS)).isEqualTo(StdioServerTransport.Outcome.STOPPED);
    }

    @Test
    void aClientThatReadsOnlyAfterWritingAllItsRequestsDoesNotStallTheInput() throws Exception {
        output.hold();
        var served = serve(StdioServerTransport.builder(server));
        int requests = 600;
        for (int id = 1; id <= requests; id++) {
            String line = switch (id % 3) {
                case 0 -> call(id, "echo", "{\"text\":\"t\"}");
                case 1 -> call(id, "quickEcho", "{\"text\":\"t\"}");
                default -> "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/list\",\"params\":{" + META + "}}";
            };
            input.add((line + "\n").getBytes(StandardCharsets.UTF_8));
        }

        assertThat(input.awaitConsumed(10, TimeUnit.SECONDS)).as("every request read while no reply can be written")
                .isTrue();
        output.release();
        List<JsonNode> replies = output.await(requests);
        input.end();

        assertThat(replies).extracting(r -> r.path("id").asLong()).doesNotHaveDuplicates().hasSize(requests);
        assertThat(served.get(10, TimeUnit.SECONDS)).isEqualTo(StdioServerTransport.Outcome.END_OF_INPUT);
    }

    @Test
    void aReplyFromAThreadWhoseInterruptFlagIsSetIsStillWritten() throws Exception {
        var served = serve(StdioServerTransport.builder(server));
        input.add((call(1, "interrupted", "{}") + "\n").getBytes(StandardCharsets.UTF_8));

        List<JsonNode> replies = output.await(1);
        input.end();

        assertThat(replies.get(0).path("result").path("structuredContent").path("text").asString())
                .isEqualTo("interrupted");
        assertThat(served.get(10, TimeUnit.SECONDS)).isEqualTo(StdioServerTransport.Outcome.END_OF_INPUT);
    }

    @Test
    void aBrokenOutputEndsServing() throws Exception {
        output.breakIt();
        var served = serve(StdioServerTransport.builder(server));
        input.add((call(1, "echo", "{\"text\":\"x\"}") + "\n").getBytes(StandardCharsets.UTF_8));

        assertThat(served.get(10, TimeUnit.SECONDS)).isEqualTo(StdioServerTransport.Outcome.OUTPUT_CLOSED);
    }

    /** Input handed over in the chunks a test chooses, then an end. */
    private static final class ChunkedInput extends InputStream {
        private static final byte[] END = new byte[0];
        private final LinkedBlockingQueue<byte[]> chunks = new LinkedBlockingQueue<>();
        private byte[] current = new byte[0];
        private int at;
        private volatile boolean closed;

        private final java.util.concurrent.atomic.AtomicLong added = new java.util.concurrent.atomic.AtomicLong();
        private final java.util.concurrent.atomic.AtomicLong consumed = new java.util.concurrent.atomic.AtomicLong();

        void add(byte[] chunk) {
            added.incrementAndGet();
            chunks.add(chunk);
        }

        void end() {
            chunks.add(END);
        }

        /** Whether every chunk added so far has been read, waiting up to the timeout. */
        boolean awaitConsumed(long timeout, TimeUnit unit) throws InterruptedException {
            long until = System.nanoTime() + unit.toNanos(timeout);
            while (System.nanoTime() < until) {
                if (consumed.get() == added.get()) {
                    return true;
                }
                Thread.sleep(10);
            }
            return false;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            while (at == current.length) {
                if (current == END || closed) {
                    return -1;
                }
                try {
                    byte[] next = chunks.poll(100, TimeUnit.MILLISECONDS);
                    if (next != null) {
                        current = next;
                        at = 0;
                    }
                } catch (InterruptedException e) {
                    throw new IOException(e);
                }
            }
            int n = Math.min(len, current.length - at);
            System.arraycopy(current, at, b, off, n);
            at += n;
            if (at == current.length) {
                consumed.incrementAndGet();
            }
            return n;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** Collects what is written and splits it into lines; counts write calls that stop inside a line. */
    private static final class LineCollector extends OutputStream {
        private final ByteArrayOutputStream written = new ByteArrayOutputStream();
        private int writesEndingMidLine;
        private volatile boolean broken;
        private boolean held;

        void breakIt() {
            broken = true;
        }

        /** Writes wait until {@link #release()}, as into the full pipe of a client that is not reading. */
        synchronized void hold() {
            held = true;
        }

        synchronized void release() {
            held = false;
            notifyAll();
        }

        @Override
        public synchronized void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws IOException {
            if (broken) {
                throw new IOException("Broken pipe");
            }
            while (held) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    throw new java.io.InterruptedIOException();
                }
            }
            written.write(b, off, len);
            if (len > 0 && b[off + len - 1] != '\n') {
                writesEndingMidLine++;
            }
            notifyAll();
        }

        synchronized int writesEndingMidLine() {
            return writesEndingMidLine;
        }

        synchronized List<String> lines(int atMost) {
            String text = written.toString(StandardCharsets.UTF_8);
            List<String> lines = new ArrayList<>();
            int start = 0;
            for (int i = text.indexOf('\n'); i >= 0 && lines.size() < atMost; i = text.indexOf('\n', start)) {
                lines.add(text.substring(start, i));
                start = i + 1;
            }
            return lines;
        }

        synchronized List<JsonNode> await(int count) throws InterruptedException {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (lines(count).size() < count && System.nanoTime() < until) {
                wait(100);
            }
            List<String> lines = lines(count);
            assertThat(lines).as("lines written").hasSize(count);
            List<JsonNode> nodes = new ArrayList<>();
            for (String line : lines) {
                nodes.add(Json.mapper().readTree(line));
            }
            return nodes;
        }
    }
}
