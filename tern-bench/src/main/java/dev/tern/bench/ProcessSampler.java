package dev.tern.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Reads a local process's CPU time and resident set size from {@code /proc/<pid>/stat} (utime + stime in clock ticks,
 * rss in pages), summed over the process and its live descendants (so that a server started through a wrapper script
 * is measured, not the script). The descendants are looked up again at most every few seconds, or when one has gone:
 * finding them reads every process's {@code stat}, milliseconds of CPU that a sampler ticking every second during a
 * measurement would take from the machine it measures. Linux only; elsewhere {@link #sample()} returns null.
 */
public final class ProcessSampler {
    private static final long RESCAN_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final long pid;
    private final long rescanNanos;
    private long[] descendants;
    private long scannedAt;

    ProcessSampler(long pid, long rescanNanos) {
        this.pid = pid;
        this.rescanNanos = rescanNanos;
    }

    /** One reading: CPU time used so far and the current resident set size. */
    public record Sample(long cpuNanos, long rssBytes) {
    }

    public static ProcessSampler of(long pid) {
        if (pid <= 0) {
            throw new IllegalArgumentException("pid: " + pid + " (expected: > 0)");
        }
        return new ProcessSampler(pid, RESCAN_NANOS);
    }

    public long pid() {
        return pid;
    }

    /** Reads the figures of the process and its descendants now; null when the process is gone or unreadable. */
    public synchronized Sample sample() {
        Sample root = sample(pid);
        if (root == null) {
            return null;
        }
        long now = System.nanoTime();
        if (descendants == null || now - scannedAt >= rescanNanos) {
            descendants = ProcessHandle.of(pid).map(p -> p.descendants().mapToLong(ProcessHandle::pid).toArray())
                    .orElse(new long[0]);
            scannedAt = now;
        }
        long cpu = root.cpuNanos();
        long rss = root.rssBytes();
        for (long child : descendants) {
            Sample s = sample(child);
            if (s != null) {
                cpu += s.cpuNanos();
                rss += s.rssBytes();
            } else {
                descendants = null; // gone (its pid may be reused): look again next time
            }
        }
        return new Sample(cpu, rss);
    }

    static Sample sample(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // fields 14 (utime), 15 (stime)
            long cpuNanos = ticks * 1_000_000_000L / clockTicks();
            long rss = Long.parseLong(fields[21]) * pageBytes(); // field 24 (rss), what status calls VmRSS
            return new Sample(cpuNanos, rss);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    static long pageBytes() {
        return SystemConstants.PAGE_BYTES;
    }

    static long clockTicks() {
        return SystemConstants.CLOCK_TICKS;
    }

    /** What getconf says, asked once (a process each) when first needed. */
    private static final class SystemConstants {
        static final long CLOCK_TICKS = getconf("CLK_TCK", 100);
        static final long PAGE_BYTES = getconf("PAGESIZE", 4096);
    }

    /** A positive number from {@code getconf NAME}, or {@code fallback} (what every Linux build on x86-64 uses). */
    private static long getconf(String name, long fallback) {
        try {
            Process p = new ProcessBuilder(List.of("getconf", name)).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).strip();
            if (p.waitFor(5, TimeUnit.SECONDS) && p.exitValue() == 0) {
                long value = Long.parseLong(out);
                if (value > 0) {
                    return value;
                }
            }
        } catch (IOException | RuntimeException e) {
            // fall through
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return fallback;
    }
}
