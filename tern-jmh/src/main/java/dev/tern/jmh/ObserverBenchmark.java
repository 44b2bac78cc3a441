package dev.tern.jmh;

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

import dev.tern.observability.Observability;
import dev.tern.server.observe.Era;
import dev.tern.server.observe.McpObserver;
import dev.tern.server.observe.RequestObservation;
import dev.tern.server.observe.Transport;

/**
 * What observing one {@code tools/call} costs the server: every call the server would make for a request, with
 * observability off, with metrics only, and with metrics and a sampled span (exported nowhere, so only the span's own
 * making is measured).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ObserverBenchmark {
    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    @Param({"off", "metrics", "metrics+tracing"})
    public String mode;

    private Observability observability;
    private McpObserver observer;
    private long id;

    @Setup(Level.Trial)
    public void setUp() {
        observability = Observability.builder()
                .metrics(!mode.equals("off"))
                .jvmMetrics(false)
                .tracing(mode.equals("metrics+tracing"))
                .build();
        observer = observability.observer();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        observability.close();
    }

    @Benchmark
    public RequestObservation toolCall() {
        long t = System.nanoTime();
        RequestObservation o = observer.request(Transport.HTTP_1_1, t)
                .parsed(t + 1_000, "tools/call", "get_user")
                .requestId(++id)
                .metaTraceContext(TRACEPARENT, null, null)
                .protocolVersion("2026-07-28")
                .era(Era.STATELESS);
        RequestObservation.Scope scope = o.handlerStarted(t + 2_000);
        o.handlerEnded(t + 3_000);
        scope.close();
        o.encodingStarted(t + 4_000).end(t + 5_000);
        return o;
    }
}
