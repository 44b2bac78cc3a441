package dev.tern.bench;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import java.util.function.IntFunction;

import dev.tern.bench.targets.StdioMcpTarget;

/**
 * The runs of one {@code tern bench} against one target, in order: optionally a cold start first (an HTTP server
 * spawned from a command line, or the stdio target's own process, timed to its first successful reply), with the
 * server's CPU and memory sampled when its process is known.
 */
public final class BenchRun {
    private static final Duration COLD_START_TIMEOUT = Duration.ofSeconds(60);

    /**
     * One run of the plan.
     *
     * @param pool the most HTTP/1.1 connections (HTTP/2 streams) the client may use
     * @param reportPool whether an open-loop run reports {@code pool} as its connections (a sweep over both)
     */
    public record Point(String name, LoadSpec spec, int pool, boolean reportPool) {
        public Point {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(spec, "spec");
        }
    }

    private final IntFunction<Target> targets;
    private final boolean spawnsItsProcess;
    private final Workload workload;
    private final List<Point> points;
    private String coldCommand;
    private Long pid;
    private boolean quiet;
    private String label;
    private PrintStream log = System.err;

    private BenchRun(IntFunction<Target> targets, boolean spawnsItsProcess, Workload workload, List<Point> points) {
        this.targets = targets;
        this.spawnsItsProcess = spawnsItsProcess;
        this.workload = workload;
        this.points = List.copyOf(points);
        if (this.points.isEmpty()) {
            throw new IllegalArgumentException("nothing to run");
        }
    }

    /** Runs against an HTTP target, made anew for each point's connection limit. */
    public static BenchRun http(IntFunction<Target> targets, Workload workload, List<Point> points) {
        return new BenchRun(targets, false, workload, points);
    }

    /** Runs against a stdio target, made once (it starts its process when made) for every point. */
    public static BenchRun stdio(IntFunction<Target> target, Workload workload, List<Point> points) {
        return new BenchRun(target, true, workload, points);
    }

    /**
     * Times a cold start first: over HTTP, spawns {@code commandLine} and times it to its first successful reply;
     * over stdio, times the target's own process ({@code commandLine} its command, for the report).
     */
    public BenchRun cold(String commandLine) {
        this.coldCommand = commandLine;
        return this;
    }

    /** Samples this local process's CPU time and memory (a spawned server is sampled without it). */
    public BenchRun sampling(Long pid) {
        this.pid = pid;
        return this;
    }

    /** No progress line. */
    public BenchRun quiet(boolean quiet) {
        this.quiet = quiet;
        return this;
    }

    /** The results' name (default: the target's description). */
    public BenchRun label(String label) {
        this.label = label;
        return this;
    }

    /** Where progress goes (default: standard error). */
    public BenchRun log(PrintStream log) {
        this.log = Objects.requireNonNull(log, "log");
        return this;
    }

    /**
     * Runs the plan; the servers it spawned are stopped when it ends.
     *
     * @throws BenchFailure naming the target, when a run fails
     */
    public BenchResult run() throws InterruptedException, BenchFailure {
        ServerProcess server = null;
        LoadRunner runner = null;
        try {
            // A stdio target starts its process when it is made; an HTTP server is spawned once the client is made,
            // so that the client's own start-up is not timed as the server's.
            long spawnedAt = System.nanoTime();
            ColdStart coldStart = null;
            List<RunResult> runs = new ArrayList<>();
            int pool = -1;
            for (Point point : points) {
                if (runner == null || (!spawnsItsProcess && point.pool() != pool)) {
                    if (runner != null) {
                        runner.close();
                    }
                    pool = point.pool();
                    runner = LoadRunner.of(targets.apply(pool), workload);
                    if (coldCommand != null && !spawnsItsProcess && server == null) {
                        spawnedAt = System.nanoTime();
                        server = ServerProcess.spawn(StdioMcpTarget.split(coldCommand));
                    }
                    if (pid != null) {
                        runner.sampling(pid);
                    } else if (server != null) {
                        runner.sampling(server.pid());
                    }
                    if (coldCommand != null && coldStart == null) {
                        coldStart = runner.coldStart(coldCommand, spawnedAt, workload.next(), COLD_START_TIMEOUT);
                        log.printf(Locale.ROOT, "tern bench: cold start %.1f ms to the first successful reply%n",
                                coldStart.startToFirstCallMs());
                    } else {
                        runner.open();
                    }
                }
                RunResult r = withProgress(runner, point.name(), point.spec(), quiet, log);
                runs.add(point.spec().open() && point.reportPool() ? r.withConnections(point.pool()) : r);
            }
            return BenchResult.of(label != null ? label : runner.target().describe(), coldStart, runs);
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new BenchFailure((runner == null ? "" : runner.target().describe() + ": ") + describe(e), e);
        } finally {
            if (runner != null) {
                runner.close();
            }
            if (server != null) {
                server.close();
            }
        }
    }

    /** One run, with a progress line on {@code log} unless quiet or shorter than 3 s. */
    static RunResult withProgress(LoadRunner runner, String name, LoadSpec spec, boolean quiet, PrintStream log)
            throws Exception {
        log.println("tern bench: " + runner.target().describe() + ", " + spec.describe()
                + (spec.warmup().isZero() ? "" : ", warm-up " + spec.warmup().toMillis() / 1000.0 + " s"));
        boolean live = !quiet && spec.warmup().plus(spec.duration()).compareTo(Duration.ofSeconds(3)) > 0;
        Consumer<Progress> line = p -> {
            if (live) {
                log.print("\r" + p.line() + "\033[K");
                log.flush();
            }
        };
        CacheTally tally = runner.target().cacheTally();
        if (tally != null) {
            tally.reset();
        }
        RunResult r = runner.progress(line).run(name, spec);
        if (live) {
            log.print("\r\033[K");
            log.flush();
        }
        String cache = tally == null ? null : tally.line();
        if (cache != null) {
            log.println("tern bench: " + cache + ", over the warm-up and the measured window");
        }
        return r;
    }

    /** A failure's own message, or its type when it has none. */
    static String describe(Throwable e) {
        Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        String message = cause.getMessage();
        return message == null || message.isBlank() ? cause.getClass().getSimpleName() : message;
    }
}
