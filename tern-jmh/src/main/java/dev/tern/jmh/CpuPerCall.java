package dev.tern.jmh;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.function.LongSupplier;

/**
 * Thread CPU time per call of {@code HttpPipelineBenchmark.mcp} or {@code floorMcp}, or of an
 * {@code EncodingPipelineBenchmark} case ({@code FORMAT:CALL}), in 5 rounds of N calls after 2N of warm-up: steadier
 * than JMH's wall-clock time on a loaded machine, as time spent waiting for a core is not counted.
 */
public final class CpuPerCall {
    public static void main(String[] args) throws Exception {
        String what = args[0];
        int n = Integer.parseInt(args[1]);
        LongSupplier call;
        if (what.equals("mcp") || what.equals("floorMcp")) {
            var b = new dev.tern.transport.http.HttpPipelineBenchmark();
            b.setUp();
            call = what.equals("mcp") ? b::mcp : b::floorMcp;
        } else {
            var b = new dev.tern.transport.http.EncodingPipelineBenchmark();
            String[] p = what.split(":");
            b.format = p[0];
            b.call = p[1];
            b.setUp();
            call = b::exchange;
        }
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long sink = 0;
        for (int i = 0; i < n * 2; i++) {
            sink += call.getAsLong();
        }
        StringBuilder out = new StringBuilder(what + " cpu ns/call:");
        for (int round = 0; round < 5; round++) {
            long t0 = mx.getCurrentThreadCpuTime();
            for (int i = 0; i < n; i++) {
                sink += call.getAsLong();
            }
            long t1 = mx.getCurrentThreadCpuTime();
            out.append(' ').append((t1 - t0) / n);
        }
        System.out.println(out + (sink == 42 ? " " : ""));
        System.exit(0);
    }
}
