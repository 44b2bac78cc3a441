package dev.tern.transport.http;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import dev.tern.bench.HttpFloor;
import dev.tern.examples.UserDirectoryServer;
import dev.tern.server.McpServer;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;

/**
 * Target 1's two calls through the server's whole HTTP/1.1 pipeline, without the network: the bytes of a 2026-07-28
 * {@code tools/call get_user} POST (as {@code bench/peers/wrk-call.lua} sends it) or of {@code GET /users/42} go in
 * on one keep-alive connection, and the bytes of the response come out. Everything the server does in user space for
 * a call is in it (HTTP parsing, the checks, routing, the JSON-RPC codec, the tool, the response's encoding), none of
 * what the kernel does (a read and a write a call, alike for both). So {@code mcp / rest} is larger than the CPU ratio
 * end to end, and steadier: the instrument for a change to the MCP path's own code. {@code floorMcp} and
 * {@code floorRest} send the same bytes through {@code HttpFloor}'s pipeline (the hand-written minimal endpoint of
 * the pinned section), whose ratio is what the protocol itself adds. The forks run with the launcher's collector
 * and young generation ({@code bin/jvm-flags.sh}) and without Netty's leak sampling, as {@code tern serve} does.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 2, jvmArgsAppend = {"-XX:+UseSerialGC", "-Xmn32m", "-Dio.netty.leakDetection.level=disabled"})
public class HttpPipelineBenchmark {
    static final byte[] MCP_BODY = ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
            + "\"get_user\",\"arguments\":{\"id\":\"42\"},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
            + "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{},\"io.modelcontextprotocol/clientInfo\":"
            + "{\"name\":\"wrk\",\"version\":\"1\"}}}}").getBytes(StandardCharsets.UTF_8);
    static final byte[] MCP_REQUEST = ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/json\r\n"
            + "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\n"
            + "Mcp-Name: get_user\r\nContent-Length: " + MCP_BODY.length + "\r\n\r\n"
            + new String(MCP_BODY, StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8);
    static final byte[] REST_REQUEST = "GET /users/42 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n"
            .getBytes(StandardCharsets.UTF_8);

    private McpServer server;
    private EmbeddedChannel connection;
    private EmbeddedChannel floorConnection;

    @Setup(Level.Trial)
    public void setUp() {
        java.util.List<Runnable> mounts = new java.util.ArrayList<>();
        HttpServerTransport.Builder[] builder = new HttpServerTransport.Builder[1];
        server = UserDirectoryServer.create((path, description, handler) -> mounts.add(() -> builder[0]
                .nonBlockingRoute("GET", path, description, request -> handler.apply(request.pathVariables())
                        .map(RouteResponse::json)
                        .orElseGet(() -> RouteResponse.notFound("Nothing at " + request.path())))));
        builder[0] = HttpServerTransport.builder(server);
        mounts.forEach(Runnable::run);
        HttpServerTransport transport = builder[0].build();
        connection = new EmbeddedChannel(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                transport.configure(ch.pipeline());
            }
        });
        floorConnection = new EmbeddedChannel(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                HttpFloor.configure(ch.pipeline());
            }
        });
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        connection.finishAndReleaseAll();
        floorConnection.finishAndReleaseAll();
        server.close();
    }

    @Benchmark
    public long mcp() {
        return exchange(MCP_REQUEST);
    }

    @Benchmark
    public long rest() {
        return exchange(REST_REQUEST);
    }

    /** The same MCP request to the floor: {@code HttpFloor}'s hand-written minimal endpoint. */
    @Benchmark
    public long floorMcp() {
        return exchange(floorConnection, MCP_REQUEST);
    }

    /** The same REST request to the floor's twin route. */
    @Benchmark
    public long floorRest() {
        return exchange(floorConnection, REST_REQUEST);
    }

    long exchange(byte[] request) {
        return exchange(connection, request);
    }

    /** Writes one request as a socket read would hand it over, then takes the response off, as the socket would. */
    private static long exchange(EmbeddedChannel connection, byte[] request) {
        send(connection, request);
        long bytes = 0;
        Object written;
        while ((written = connection.readOutbound()) != null) {
            if (written instanceof ByteBuf buf) {
                bytes += buf.readableBytes();
            }
            ReferenceCountUtil.release(written);
        }
        return bytes;
    }

    /** Hands {@code request} to the pipeline as one socket read, and runs what the event loop was given to do. */
    private static void send(EmbeddedChannel connection, byte[] request) {
        ByteBuf in = connection.alloc().buffer(request.length);
        in.writeBytes(request);
        connection.writeInbound(in);
        connection.runPendingTasks();
    }

    /** The next response as text, for the test that keeps this benchmark honest. */
    String responseTo(byte[] request) {
        return responseTo(connection, request);
    }

    String floorResponseTo(byte[] request) {
        return responseTo(floorConnection, request);
    }

    private static String responseTo(EmbeddedChannel connection, byte[] request) {
        send(connection, request);
        StringBuilder text = new StringBuilder();
        Object written;
        while ((written = connection.readOutbound()) != null) {
            if (written instanceof ByteBuf buf) {
                text.append(buf.toString(StandardCharsets.UTF_8));
            }
            ReferenceCountUtil.release(written);
        }
        return text.toString();
    }
}
