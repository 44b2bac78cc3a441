package dev.tern.transport.http;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
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

import dev.tern.examples.UserDirectory;
import dev.tern.examples.UserDirectoryServer;
import dev.tern.protocol.Decoded;
import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcCodec;
import dev.tern.protocol.MessageCodec;
import dev.tern.protocol.WireFormat;
import dev.tern.protocol.model.CallToolResult;
import dev.tern.server.McpServer;
import dev.tern.server.ToolSpec;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;

/**
 * One 2026-07-28 {@code tools/call} through the server's whole HTTP/1.1 pipeline, as {@link HttpPipelineBenchmark}
 * sends it, with the body and the answer in JSON, CBOR or MessagePack: {@code get_user} (one user), a
 * {@code list_users} page of 100, and {@code users_page} (a tool of this benchmark answering ~100 KB, 250 users). The
 * setup prints the request's and the response's bytes on the wire.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-XX:+UseSerialGC", "-Xmn32m", "-Dio.netty.leakDetection.level=disabled"})
public class EncodingPipelineBenchmark {
    @Param({"JSON", "CBOR", "MSGPACK"})
    public String format;

    @Param({"get_user", "list_users", "users_page"})
    public String call;

    private McpServer server;
    private EmbeddedChannel connection;
    private byte[] request;

    @Setup(Level.Trial)
    public void setUp() {
        UserDirectory directory = UserDirectory.generate(1_000);
        server = McpServer.builder().register(new UserDirectoryServer(directory))
                .tool(ToolSpec.builder("users_page").description("250 users, ~100 KB.").nonBlocking(true)
                        .handler((ctx, args) -> {
                            String users = Json.mapper().writeValueAsString(directory.page(0, 250));
                            return new CallToolResult(List.of(new dev.tern.protocol.model.TextContent(users, null,
                                    null)), Json.rawJson("{\"users\":" + users + "}"), null, null);
                        }).build())
                .build();
        HttpServerTransport transport = HttpServerTransport.builder(server).build();
        connection = new EmbeddedChannel(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                transport.configure(ch.pipeline());
            }
        });
        String arguments = switch (call) {
            case "get_user" -> "{\"id\":\"42\"}";
            case "list_users" -> "{\"limit\":100}";
            default -> "{}";
        };
        byte[] json = ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"" + call
                + "\",\"arguments\":" + arguments + ",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
                + "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{},\"io.modelcontextprotocol/clientInfo\":"
                + "{\"name\":\"wrk\",\"version\":\"1\"}}}}").getBytes(StandardCharsets.UTF_8);
        WireFormat wire = WireFormat.valueOf(format);
        JsonRpcCodec codec = JsonRpcCodec.withDefaults();
        byte[] body = wire == WireFormat.JSON ? json
                : MessageCodec.of(wire, codec).encode(((Decoded.Single) codec.decode(json)).message());
        String accept = (wire == WireFormat.JSON ? "" : wire.mediaType() + ", ") + "application/json, text/event-stream";
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: " + wire.mediaType()
                + "\r\nAccept: " + accept + "\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\n"
                + "Mcp-Name: " + call + "\r\nContent-Length: " + body.length + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(body);
        request = out.toByteArray();
        long response = exchange();
        System.out.printf("%n# %s %s: request body %,d bytes, response %,d bytes (head included)%n", format, call,
                body.length, response);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        connection.finishAndReleaseAll();
        server.close();
    }

    @Benchmark
    public long exchange() {
        ByteBuf in = connection.alloc().buffer(request.length);
        in.writeBytes(request);
        connection.writeInbound(in);
        connection.runPendingTasks();
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
}
