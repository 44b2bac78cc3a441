package dev.tern.jmh;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import dev.tern.examples.UserDirectory;
import dev.tern.protocol.CodecLimits;
import dev.tern.protocol.Decoded;
import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcCodec;
import dev.tern.protocol.JsonRpcResult;
import dev.tern.protocol.RequestId;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The strict codec: decoding a {@code tools/call} request and encoding a {@code get_user} result, read back from the
 * wire ({@code encodeGetUserResult}) and as the server builds it ({@code encodeGetUserToolResult}); and serializing
 * the user record that result carries, once, as a tool's return value is.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(2)
public class CodecBenchmark {
    private final JsonRpcCodec codec = new JsonRpcCodec(CodecLimits.DEFAULT);
    private JsonRpcResult result;
    private JsonRpcResult toolResult;
    private final UserDirectory.User user = UserDirectory.generate(100).find("42").orElseThrow();

    @Setup
    public void setUp() {
        Decoded.Single reply = (Decoded.Single) codec.decode(Dispatch.modernReply());
        ObjectNode tree = (ObjectNode) ((JsonRpcResult) reply.message()).result();
        result = new JsonRpcResult(RequestId.of(1), tree);
        JsonNode structured = Json.rawJsonOf(user);
        ObjectNode built = Json.object();
        built.putArray("content").addObject().put("type", "text")
                .set("text", Json.stringNode(Json.rawText(structured), structured));
        built.set("structuredContent", structured);
        toolResult = new JsonRpcResult(RequestId.of(1), built);
    }

    @Benchmark
    public Decoded decodeModernToolCall() {
        return codec.decode(Messages.MODERN_GET_USER);
    }

    @Benchmark
    public byte[] encodeGetUserResult() {
        return codec.encode(result);
    }

    /** The same result as the server builds it: the user serialized once, as text block and structured content. */
    @Benchmark
    public byte[] encodeGetUserToolResult() {
        return codec.encode(toolResult);
    }

    @Benchmark
    public JsonNode serializeUserOnce() {
        return Json.rawJsonOf(user);
    }
}
