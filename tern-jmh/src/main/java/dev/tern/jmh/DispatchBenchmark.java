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
import dev.tern.protocol.CodecLimits;
import dev.tern.protocol.JsonRpcCodec;
import dev.tern.server.McpServer;
import dev.tern.server.ServerChannel;

/**
 * A {@code get_user} tool call from request bytes to response bytes, without a network: a 2026-07-28 request served
 * on its own (as the HTTP transport serves each stateless POST), and a request on a legacy session's channel.
 * Includes the hop to the handler's virtual thread, but for {@link #modernToolCallInline}: the same call with the
 * handler run on the calling thread, as the HTTP and stdio transports run the example's non-blocking tools.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(2)
public class DispatchBenchmark {
    private McpServer server;
    private Dispatch dispatch;
    private Dispatch inlineDispatch;
    private ServerChannel session;

    @Setup
    public void setUp() {
        server = UserDirectoryServer.create();
        dispatch = new Dispatch(new JsonRpcCodec(CodecLimits.DEFAULT));
        inlineDispatch = new Dispatch(new JsonRpcCodec(CodecLimits.DEFAULT), true);
        session = server.connect(dispatch);
        dispatch.call(session, Messages.INITIALIZE);
        session.receive(new JsonRpcCodec(CodecLimits.DEFAULT).decode(Messages.INITIALIZED));
    }

    @TearDown
    public void tearDown() {
        session.close();
        server.close();
    }

    @Benchmark
    public byte[] modernToolCall() {
        return stateless(dispatch, Messages.MODERN_GET_USER);
    }

    @Benchmark
    public byte[] modernToolCallInline() {
        return stateless(inlineDispatch, Messages.MODERN_GET_USER);
    }

    /** A {@code search_users} call answering 100 users (~30 KB), inline as above: the result's size dominates. */
    @Benchmark
    public byte[] modernLargeResultInline() {
        return stateless(inlineDispatch, Messages.MODERN_SEARCH_USERS);
    }

    @Benchmark
    public byte[] legacyToolCall() {
        return dispatch.call(session, Messages.LEGACY_GET_USER);
    }

    /** {@code request} served on its own, without a channel, as the HTTP transport serves a 2026-07-28 POST. */
    private byte[] stateless(Dispatch through, byte[] request) {
        return through.serve(server, request);
    }
}
