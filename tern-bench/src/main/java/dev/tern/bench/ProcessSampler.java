package dev.tern.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Reads a local process's CPU time and resident set size from {@code /proc/<pid>/stat} (utime + stime, in clock ticks)
 * and {@code /proc/<pid>/status} ({@code VmRSS}), summed over the process and its live descendants (so that a server
 * started through a wrapper script is measured, not the script). Linux only; elsewhere {@link #sample()} returns null.
 */
public final class ProcessSampler {
    private static volatile long clockTicksPerSecond;

    private final long pid;

    private ProcessSampler(long pid) {
        this.pid = pid;
    }

    /** One reading: CPU time used so far and the current resident set size. */
    public record Sample(long cpuNanos, long rssBytes) {
    }

    public static ProcessSampler of(long pid) {
        if (pid <= 0) {
            throw new IllegalArgumentException("pid: " + pid + " (expected: > 0)");
        }
        return new ProcessSampler(pid);
    }

    public long pid() {
        return pid;
    }

    /** Reads the figures of the process and its descendants now; null when the process is gone or unreadable. */
    public Sample sample() {
        Sample root = sample(pid);
        if (root == null) {
            return null;
        }
        long cpu = root.cpuNanos();
        long rss = root.rssBytes();
        for (ProcessHandle child : ProcessHandle.of(pid).map(p -> p.descendants().toList()).orElse(List.of())) {
            Sample s = sample(child.pid());
            if (s != null) {
                cpu += s.cpuNanos();
                rss += s.rssBytes();
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
            long rss = 0;
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    rss = Long.parseLong(line.substring(6).replace("kB", "").strip()) * 1024;
                    break;
                }
            }
            return new Sample(cpuNanos, rss);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    static long clockTicks() {
        long ticks = clockTicksPerSecond;
        if (ticks == 0) {
            ticks = readClockTicks();
            clockTicksPerSecond = ticks;
        }
        return ticks;
    }

    private static long readClockTicks() {
        try {
            Process p = new ProcessBuilder(List.of("getconf", "CLK_TCK")).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).strip();
            if (p.waitFor(5, TimeUnit.SECONDS) && p.exitValue() == 0) {
                long value = Long.parseLong(out);
                if (value > 0) {
                    return value;
                }
            }
        } catch (IOException | RuntimeException e) {
            // fall through to the value every Linux build uses
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 100;
    }
}
