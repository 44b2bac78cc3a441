package dev.tern.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Histogram;

/**
 * The cheapest possible stdio load, to show a server's capacity where {@code tern bench --stdio} (which parses every
 * reply) would be the bottleneck on a small machine. It spawns the server and writes pre-encoded 2026-07-28
 * {@code tools/call} requests through its stdin, at most {@code --window} unanswered, either as fast as answered
 * (closed loop) or at {@code --rate} per second (open loop, latency timed from each request's intended send time). It
 * reads reply lines without parsing them (the first is checked, the others must have its length but for their id) and
 * prints calls per second, latency percentiles, the server's CPU per call and its own. Bounded by {@code --requests}
 * and {@code --seconds}; stdin stays open until every reply is in, as a server may drop what is in flight at its end.
 *
 * <pre>java -cp tern.jar dev.tern.bench.StdioFlood [--requests N] [--warmup N] [--window N] [--rate R]
 *     [--seconds S] [--tool NAME] [--args JSON] -- COMMAND...</pre>
 */
public final class StdioFlood {
    private static final byte[] ID_PREFIX = "{\"jsonrpc\":\"2.0\",\"id\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ERROR_MARK = "\"error\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TOOL_ERROR_MARK = "\"isError\":true".getBytes(StandardCharsets.US_ASCII);

    private final long warmup;
    private final long total;
    private final int window;
    private final long rate;
    private final long deadlineNanos;
    private final byte[] requestTail;
    /** Intended send time of each request, by id (ids run from 1 to {@link #total}). */
    private final long[] intendedNanos;
    private volatile long sent;
    private volatile long received;
    private volatile boolean writerDone;
    private volatile boolean writerWaiting;
    private volatile boolean readerDone;
    private volatile Thread writer;

    private StdioFlood(long warmup, long requests, int window, long rate, long seconds, String tool, String args) {
        this.warmup = warmup;
        this.total = warmup + requests;
        this.window = window;
        this.rate = rate;
        this.deadlineNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        this.intendedNanos = new long[Math.toIntExact(total + 1)];
        this.requestTail = (",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool + "\",\"arguments\":" + args
                + ",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":{},"
                + "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"tern-flood\",\"version\":\"1\"}}}}\n")
                .getBytes(StandardCharsets.UTF_8);
    }

    public static void main(String[] args) throws Exception {
        long requests = 1_000_000;
        long warmup = 200_000;
        int window = 256;
        long rate = 0;
        long seconds = 60;
        String tool = "get_user";
        String toolArgs = "{\"id\":\"42\"}";
        List<String> command = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--requests" -> requests = Long.parseLong(args[++i]);
                case "--warmup" -> warmup = Long.parseLong(args[++i]);
                case "--window" -> window = Integer.parseInt(args[++i]);
                case "--rate" -> rate = Long.parseLong(args[++i]);
                case "--seconds" -> seconds = Long.parseLong(args[++i]);
                case "--tool" -> tool = args[++i];
                case "--args" -> toolArgs = args[++i];
                case "--" -> {
                    command.addAll(Arrays.asList(args).subList(i + 1, args.length));
                    i = args.length;
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (command.isEmpty() || requests <= 0 || warmup < 1 || requests + warmup > 50_000_000 || window <= 0
                || rate < 0 || seconds <= 0) {
            System.err.println("usage: StdioFlood [--requests N] [--warmup N] [--window N] [--rate R] [--seconds S] "
                    + "[--tool NAME] [--args JSON] -- COMMAND...  (at most 50,000,000 requests in all)");
            System.exit(2);
        }
        System.exit(new StdioFlood(warmup, requests, window, rate, seconds, tool, toolArgs).run(command));
    }

    private int run(List<String> command) throws Exception {
        Process server = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        ProcessSampler serverCpu = ProcessSampler.of(server.pid());
        writer = Thread.ofPlatform().name("flood-writer").start(() -> writeLoop(server.getOutputStream()));
        Thread.ofPlatform().daemon().name("flood-watchdog").start(() -> {
            long killAt = deadlineNanos + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() < killAt) {
                LockSupport.parkNanos(killAt - System.nanoTime());
            }
            server.destroy();
        });
        // The reading loop below is the same code from the first reply to the last: [0] takes the warm-up's latencies,
        // [1] the measured ones, picked without a branch. A branch first taken at the window's start would make the
        // JIT throw away the loop's compiled code there and compile it again while the replies queue.
        Histogram[] latencies = {new Histogram(TimeUnit.SECONDS.toNanos(60), 3),
            new Histogram(TimeUnit.SECONDS.toNanos(60), 3)};
        Histogram latency = latencies[1];
        long highestLatency = latency.getHighestTrackableValue();
        long[] replyTimes = new long[2]; // [1]: when the last warm-up reply came
        long errors = 0;
        int okShape = -1;
        long[] startCounters = new long[4];
        // Load the classes and code of the snapshots now, not in the middle of the load.
        cpu(serverCpu);
        ownCpu();
        contextSwitches(server.pid());
        // Reading /proc for every server thread takes milliseconds of CPU, which on a small machine delays the replies
        // of that moment: a thread of its own reads the counters a tenth of the warm-up before the measured window, and
        // the CPU figures are divided by the replies since then.
        long snapshotAt = warmup - warmup / 10;
        Thread startSnapshot = Thread.ofPlatform().name("flood-snapshot").start(() -> {
            while (received < snapshotAt && !readerDone) {
                LockSupport.parkNanos(1_000_000);
            }
            long before = received;
            startCounters[0] = cpu(serverCpu);
            startCounters[1] = ownCpu();
            startCounters[2] = contextSwitches(server.pid());
            startCounters[3] = (before + received) / 2;
        });
        byte[] chunk = new byte[8 * 1024]; // a larger read of a pipe mallocs a buffer per call (see the stdio transport)
        byte[] line = new byte[1 << 16];
        int lineLength = 0;
        InputStream in = server.getInputStream();
        try {
            int n;
            while (received < total && (n = in.read(chunk)) >= 0) {
                long now = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    byte b = chunk[i];
                    if (b != '\n') {
                        if (lineLength < line.length) {
                            line[lineLength++] = b;
                        }
                        continue;
                    }
                    int digits = idDigits(line, lineLength);
                    int shape = lineLength - digits;
                    if (okShape < 0 && !contains(line, lineLength, ERROR_MARK)
                            && !contains(line, lineLength, TOOL_ERROR_MARK)) {
                        okShape = shape;
                    }
                    if (shape != okShape && errors++ == 0) {
                        System.err.println("first error: " + new String(line, 0, lineLength, StandardCharsets.UTF_8));
                    }
                    long id = 0;
                    for (int d = ID_PREFIX.length; d < ID_PREFIX.length + digits; d++) {
                        id = id * 10 + line[d] - '0';
                    }
                    lineLength = 0;
                    long r = received + 1;
                    received = r;
                    replyTimes[(int) (((r ^ warmup) - 1) >>> 63)] = now; // index 1 only when r == warmup
                    if (id > 0 && id <= total) {
                        latencies[(int) ((warmup - r) >>> 63)].recordValue( // index 1 once r > warmup
                                Math.min(Math.max(0, now - intendedNanos[(int) id]), highestLatency));
                    }
                    if (writerWaiting && sent - r <= window / 2) {
                        LockSupport.unpark(writer);
                    }
                    if (r == total) {
                        break;
                    }
                }
                if (writerDone && received >= sent) {
                    break;
                }
            }
        } finally {
            long endNanos = System.nanoTime();
            readerDone = true;
            startSnapshot.join();
            long startNanos = received >= warmup ? replyTimes[1] : 0;
            long serverCpuStart = startCounters[0];
            long ownCpuStart = startCounters[1];
            long switchesStart = startCounters[2];
            long sampledReplies = Math.max(1, received - startCounters[3]);
            long serverCpuEnd = cpu(serverCpu);
            long ownCpuEnd = ownCpu();
            long switchesEnd = contextSwitches(server.pid());
            writerDone = true;
            writer.join(TimeUnit.SECONDS.toMillis(5));
            try {
                server.getOutputStream().close();
            } catch (IOException serverGone) {
                // it exited already (its stdin is closed with it)
            }
            if (!server.waitFor(10, TimeUnit.SECONDS)) {
                server.destroy();
                server.waitFor(5, TimeUnit.SECONDS);
            }
            long measured = received - warmup;
            if (startNanos == 0 || measured <= 0) {
                System.out.printf(Locale.ROOT, "no measured replies (received %d of %d)%n", received, total);
                return 1;
            }
            double seconds = (endNanos - startNanos) / 1e9;
            System.out.printf(Locale.ROOT,
                    "%s  calls %d  seconds %.2f  calls/s %.0f  p50 ms %.3f  p90 ms %.3f  p99 ms %.3f  p99.9 ms %.3f"
                            + "  max ms %.3f  server CPU/call us %.2f  server context switches/call %.2f"
                            + "  driver CPU/call us %.2f  errors %d%n",
                    rate > 0 ? "open " + rate + "/s, window " + window : "closed, window " + window,
                    measured, seconds, measured / seconds,
                    latency.getValueAtPercentile(50) / 1e6, latency.getValueAtPercentile(90) / 1e6,
                    latency.getValueAtPercentile(99) / 1e6, latency.getValueAtPercentile(99.9) / 1e6,
                    latency.getMaxValue() / 1e6,
                    (serverCpuEnd - serverCpuStart) / 1e3 / sampledReplies,
                    (switchesEnd - switchesStart) / (double) sampledReplies,
                    (ownCpuEnd - ownCpuStart) / 1e3 / sampledReplies,
                    errors);
        }
        return errors == 0 && received == total ? 0 : 1;
    }

    private void writeLoop(OutputStream out) {
        byte[] buffer = new byte[8 * 1024]; // as for reads: a larger write mallocs a buffer per call
        int requestBytes = ID_PREFIX.length + 20 + requestTail.length;
        try {
            // The schedule starts at the first reply, so that the server's start-up leaves no backlog behind it.
            int length = encode(buffer, 0, 1);
            out.write(buffer, 0, length);
            out.flush();
            intendedNanos[1] = System.nanoTime();
            sent = 1;
            while (received == 0 && !writerDone && System.nanoTime() < deadlineNanos) {
                writerWaiting = true;
                LockSupport.parkNanos(1_000_000);
            }
            writerWaiting = false;
            long startNanos = System.nanoTime();
            long next = 2;
            while (next <= total && !writerDone && System.nanoTime() < deadlineNanos) {
                long room = window - (next - 1 - received);
                if (room <= 0) {
                    writerWaiting = true;
                    if (window - (next - 1 - received) <= 0) {
                        LockSupport.parkNanos(1_000_000);
                    }
                    writerWaiting = false;
                    continue;
                }
                long now = System.nanoTime();
                long due = rate == 0 ? total : Math.min(total, (now - startNanos) * rate / 1_000_000_000L + 2);
                if (next > due) {
                    LockSupport.parkNanos(startNanos + (next - 2) * 1_000_000_000L / rate - now);
                    continue;
                }
                length = 0;
                while (room-- > 0 && next <= due && length + requestBytes <= buffer.length) {
                    intendedNanos[(int) next] = rate == 0 ? now : startNanos + (next - 2) * 1_000_000_000L / rate;
                    length = encode(buffer, length, next++);
                }
                out.write(buffer, 0, length);
                out.flush();
                sent = next - 1;
            }
        } catch (IOException e) {
            System.err.println("cannot write to the server: " + e.getMessage());
        } finally {
            writerDone = true;
        }
    }

    private int encode(byte[] buffer, int at, long id) {
        System.arraycopy(ID_PREFIX, 0, buffer, at, ID_PREFIX.length);
        at += ID_PREFIX.length;
        String digits = Long.toString(id);
        for (int i = 0; i < digits.length(); i++) {
            buffer[at++] = (byte) digits.charAt(i);
        }
        System.arraycopy(requestTail, 0, buffer, at, requestTail.length);
        return at + requestTail.length;
    }

    private static int idDigits(byte[] line, int length) {
        int digits = 0;
        for (int i = ID_PREFIX.length; i < length && line[i] >= '0' && line[i] <= '9'; i++) {
            digits++;
        }
        return digits;
    }

    private static boolean contains(byte[] haystack, int length, byte[] needle) {
        return ByteSearch.indexOf(haystack, length, needle) >= 0;
    }

    private static long cpu(ProcessSampler sampler) {
        ProcessSampler.Sample s = sampler.sample();
        return s == null ? 0 : s.cpuNanos();
    }

    /** Context switches of all the threads of a process so far, voluntary or not (how often its threads slept). */
    private static long contextSwitches(long pid) {
        long sum = 0;
        try (var tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks) {
                try {
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")
                                || line.startsWith("nonvoluntary_ctxt_switches:")) {
                            sum += Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
                        }
                    }
                } catch (IOException | RuntimeException threadGone) {
                    // a thread that ended since the listing
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return sum;
    }

    private static long ownCpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }
}
