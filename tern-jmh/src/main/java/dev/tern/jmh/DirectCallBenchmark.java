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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import dev.tern.examples.UserDirectoryServer;
import dev.tern.protocol.Json;
import dev.tern.server.CallOutcome;
import dev.tern.server.McpServer;

import tools.jackson.databind.node.ObjectNode;

/**
 * What the REST façade ({@code POST /rest/tools/get_user}) does for a call, without the network: the tool called
 * outside any session, then its structured content written as the response body. {@link #unparsed} is the façade's
 * path ({@link McpServer#callToolUnparsed}: the value written from the JSON it was serialized to);
 * {@link #parsed} is {@link McpServer#callTool}, whose result holds that JSON parsed back into a tree, written again.
 * {@code get_user} is non-blocking, so both run the tool on the calling thread.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(2)
public class DirectCallBenchmark {
    private McpServer server;
    private ObjectNode arguments;

    @Setup
    public void setUp() {
        server = UserDirectoryServer.create();
        arguments = Json.object().put("id", "7");
    }

    @TearDown
    public void tearDown() {
        server.close();
    }

    @Benchmark
    public byte[] unparsed() {
        return body(server.callToolUnparsed("get_user", arguments).join());
    }

    @Benchmark
    public byte[] parsed() {
        return body(server.callTool("get_user", arguments).join());
    }

    private static byte[] body(CallOutcome outcome) {
        if (!(outcome instanceof CallOutcome.Done done) || done.isError()) {
            throw new IllegalStateException("get_user failed: " + outcome);
        }
        return Json.mapper().writeValueAsBytes(done.result().get("structuredContent"));
    }
}
