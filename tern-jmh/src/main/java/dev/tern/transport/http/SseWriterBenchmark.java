package dev.tern.transport.http;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import dev.tern.examples.UserDirectoryServer;
import dev.tern.protocol.CodecLimits;
import dev.tern.protocol.JsonRpcCodec;
import dev.tern.protocol.JsonRpcResponse;
import dev.tern.server.McpServer;
import dev.tern.server.ServerChannel;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.util.ReferenceCountUtil;

/**
 * The SSE writer: one message framed as an event ({@code id:} and {@code data:} lines) on an open stream and
 * written, as a legacy session's POST or GET stream sends it. {@code chunked} takes the event through Netty's
 * HTTP/1.1 response encoder (chunked transfer coding) to bytes; {@code framed} stops at the HTTP content the writer
 * hands to the pipeline (what HTTP/2 stream channels receive). Payloads: a {@code get_user} response and a progress
 * notification. No network: an embedded channel takes the writes and the benchmark releases them.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(2)
public class SseWriterBenchmark {
    private static final byte[] PROGRESS = ("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":"
            + "{\"progressToken\":\"call-7\",\"progress\":3,\"total\":10,\"message\":\"reading the directory\"}}")
            .getBytes(StandardCharsets.UTF_8);
    private static final byte[] MODERN_GET_USER = ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
            + "{\"name\":\"get_user\",\"arguments\":{\"id\":\"7\"},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
            + "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{},\"io.modelcontextprotocol/clientInfo\":"
            + "{\"name\":\"jmh\",\"version\":\"1\"}}}}").getBytes(StandardCharsets.UTF_8);

    @Param({"get_user", "progress"})
    public String payload;

    private byte[] message;
    private EmbeddedChannel chunked;
    private HttpExchange chunkedStream;
    private EmbeddedChannel framed;
    private HttpExchange framedStream;
    private long sequence;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        message = payload.equals("progress") ? PROGRESS : getUserResponse();
        chunked = new EmbeddedChannel(new HttpResponseEncoder(), new ChannelInboundHandlerAdapter());
        chunkedStream = openStream(chunked);
        framed = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
        framedStream = openStream(framed);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        chunked.finishAndReleaseAll();
        framed.finishAndReleaseAll();
    }

    @Benchmark
    public long chunked() {
        chunkedStream.event(message, eventId(), false);
        return drain(chunked);
    }

    @Benchmark
    public long framed() {
        framedStream.event(message, eventId(), false);
        return drain(framed);
    }

    /** Event ids as a session stream numbers them: the stream's id, then the event's sequence in it. */
    private String eventId() {
        return "3_" + (++sequence);
    }

    private static HttpExchange openStream(EmbeddedChannel channel) {
        ChannelHandlerContext ctx = channel.pipeline().lastContext();
        HttpOptions.ConnectionLimits limits = new HttpOptions.ConnectionLimits(10_000, 512, Duration.ofSeconds(60),
                Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(30), 4L * 1024 * 1024);
        HttpExchange exchange = new HttpExchange(ctx, true, limits, new java.util.concurrent.atomic.AtomicInteger(), () -> { });
        exchange.startStream("3_0", Duration.ofSeconds(1), null);
        drain(channel);
        return exchange;
    }

    /**
     * Runs the loop's flush, then takes what was written off the channel, as the socket would; returns the bytes, so
     * that none is dead code.
     */
    private static long drain(EmbeddedChannel channel) {
        channel.runPendingTasks();
        long bytes = 0;
        Object written;
        while ((written = channel.readOutbound()) != null) {
            if (written instanceof ByteBuf buf) {
                bytes += buf.readableBytes();
            } else if (written instanceof HttpContent content) {
                bytes += content.content().readableBytes();
            }
            ReferenceCountUtil.release(written);
        }
        return bytes;
    }

    /** The encoded response of a 2026-07-28 {@code get_user} call, as the server sends it. */
    private static byte[] getUserResponse() throws Exception {
        JsonRpcCodec codec = new JsonRpcCodec(CodecLimits.DEFAULT);
        CompletableFuture<byte[]> reply = new CompletableFuture<>();
        try (McpServer server = UserDirectoryServer.create()) {
            ServerChannel channel = server.connect((message, relatedTo) -> {
                if (message instanceof JsonRpcResponse) {
                    reply.complete(codec.encode(message));
                }
            });
            channel.receive(codec.decode(MODERN_GET_USER));
            return reply.get(10, TimeUnit.SECONDS);
        }
    }
}
