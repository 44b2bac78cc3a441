package dev.tern.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import org.HdrHistogram.Histogram;

/**
 * Runs load against one target: {@link #open()} it once, then {@link #run} one or more {@link LoadSpec}s (a sweep
 * runs several on the same target), then {@link #close()}. Not for concurrent runs.
 */
public final class LoadRunner implements AutoCloseable {
    private static final long EARLY_WAKE_NANOS = 50_000;

    private final Target target;
    private final Workload workload;
    private ProcessSampler sampler;
    private Consumer<Progress> progress = p -> { };
    private volatile Measurement current;
    private Measurement beforeFirstRun;
    private boolean opened;

    private LoadRunner(Target target, Workload workload) {
        this.target = Objects.requireNonNull(target, "target");
        this.workload = Objects.requireNonNull(workload, "workload");
    }

    public static LoadRunner of(Target target, Workload workload) {
        return new LoadRunner(target, workload);
    }

    /** Samples this process's CPU and memory during runs; by default the target's own process, if it has one. */
    public LoadRunner sampling(long pid) {
        this.sampler = pid > 0 ? ProcessSampler.of(pid) : null;
        return this;
    }

    /** Receives the run's state once a second. */
    public LoadRunner progress(Consumer<Progress> listener) {
        this.progress = Objects.requireNonNull(listener, "listener");
        return this;
    }

    /** Opens the target. Connections it opens now are counted in the first run. */
    public LoadRunner open() throws Exception {
        if (!opened) {
            beforeFirstRun = new Measurement(System.nanoTime(), System.nanoTime(), 1, null);
            current = beforeFirstRun;
            target.open(new ConnectionObserver() {
                @Override
                public void connected(long connectNanos) {
                    current.connected(connectNanos);
                }

                @Override
                public void tlsHandshake(long handshakeNanos, boolean resumed) {
                    current.tlsHandshake(handshakeNanos, resumed);
                }
            });
            opened = true;
            if (sampler == null && target.pid() > 0) {
                sampler = ProcessSampler.of(target.pid());
            }
        }
        return this;
    }

    /**
     * Measures a cold start: the target's server was spawned at {@code spawnedAtNanos} ({@link System#nanoTime()});
     * opens the target and sends {@code probe} until a reply is ok, retrying every few milliseconds while it fails.
     * The target is then open for warm runs.
     */
    public ColdStart coldStart(String command, long spawnedAtNanos, Operation probe, Duration timeout)
            throws Exception {
        long deadline = spawnedAtNanos + timeout.toNanos();
        int attempts = 0;
        String last = "no attempt";
        while (System.nanoTime() - deadline < 0) {
            attempts++;
            try {
                open();
                long sent = System.nanoTime();
                Outcome o = target.call(probe).get(Math.max(1, deadline - sent), TimeUnit.NANOSECONDS);
                long done = System.nanoTime();
                if (o.isOk()) {
                    return new ColdStart(command, Latency.ms(done - spawnedAtNanos), Latency.ms(done - sent),
                            attempts);
                }
                last = o.status().key() + " " + o.detail();
            } catch (java.util.concurrent.TimeoutException e) {
                break;
            } catch (Exception e) {
                last = Outcome.transport(e).detail();
            }
            LockSupport.parkNanos(5_000_000);
        }
        throw new IllegalStateException("no successful reply within " + timeout + " of starting " + command
                + " (" + attempts + " attempts; last: " + last + ")");
    }

    public Target target() {
        return target;
    }

    /** Runs one load and returns its figures. Opens the target first if that was not done. */
    public RunResult run(String name, LoadSpec spec) throws Exception {
        open();
        long start = System.nanoTime() + 1_000_000;
        long measureFrom = start + spec.warmup().toNanos();
        int phases = spec.open() ? spec.steps().size() : 1;
        Measurement m = new Measurement(start, measureFrom, phases,
                Outcome.failed(Outcome.Status.TIMEOUT, "no reply within " + spec.requestTimeout()));
        if (beforeFirstRun != null) {
            m.adoptConnections(beforeFirstRun);
            beforeFirstRun = null;
        }
        current = m;
        Ticker ticker = new Ticker(m, spec);
        AtomicInteger inFlight = new AtomicInteger();
        ticker.start(inFlight);
        try {
            if (spec.open()) {
                runOpenLoop(m, spec, inFlight);
            } else {
                runClosedLoop(m, spec, inFlight);
            }
            awaitDrained(inFlight, spec.requestTimeout().plusSeconds(2));
        } finally {
            ticker.stop();
            m.close();
        }
        List<Double> phaseSeconds = new ArrayList<>();
        for (LoadSpec.RateStep step : spec.steps()) {
            phaseSeconds.add(step.duration().toNanos() / 1e9);
        }
        return m.result(name, target.describe(), workload.toString(), spec, phaseSeconds, ticker.processFigures(m),
                ticker.series());
    }

    private void runOpenLoop(Measurement m, LoadSpec spec, AtomicInteger inFlight) {
        long measuredSent = 0;
        long segmentStart = m.startNanos;
        List<LoadSpec.RateStep> segments = new ArrayList<>();
        if (!spec.warmup().isZero()) {
            segments.add(new LoadSpec.RateStep(spec.rate(), spec.warmup()));
        }
        segments.addAll(spec.steps());
        int firstPhase = spec.warmup().isZero() ? 0 : -1;
        for (int s = 0; s < segments.size(); s++) {
            LoadSpec.RateStep segment = segments.get(s);
            int phase = firstPhase + s;
            long length = segment.duration().toNanos();
            double interval = 1e9 / segment.rate();
            for (long i = 0; ; i++) {
                long offset = (long) (i * interval);
                if (offset >= length) {
                    break;
                }
                if (phase != Measurement.WARMUP && spec.maxRequests() > 0 && measuredSent >= spec.maxRequests()) {
                    return;
                }
                long intended = segmentStart + offset;
                waitUntil(intended);
                if (phase != Measurement.WARMUP) {
                    measuredSent++;
                }
                if (inFlight.get() >= spec.maxInFlight()) {
                    m.record(intended, phase, Outcome.failed(Outcome.Status.OVERFLOW,
                            "more than " + spec.maxInFlight() + " requests in flight"), System.nanoTime());
                    continue;
                }
                send(m, intended, phase, spec.requestTimeout(), inFlight);
            }
            segmentStart += length;
        }
    }

    private static void waitUntil(long instant) {
        long wait;
        while ((wait = instant - System.nanoTime()) > EARLY_WAKE_NANOS) {
            LockSupport.parkNanos(wait - EARLY_WAKE_NANOS);
        }
    }

    /** Sends one request; its latency counts from {@code intended}, or from the actual send if that was earlier. */
    private CompletableFuture<Void> send(Measurement m, long intended, int phase, Duration timeout,
            AtomicInteger inFlight) {
        inFlight.incrementAndGet();
        long sent = System.nanoTime();
        long timedFrom = Math.min(intended, sent);
        CompletableFuture<Outcome> reply;
        try {
            reply = target.call(workload.next());
        } catch (RuntimeException e) {
            reply = CompletableFuture.completedFuture(Outcome.transport(e));
        }
        return reply.completeOnTimeout(m.timeoutOutcome, timeout.toNanos(), TimeUnit.NANOSECONDS)
                .handle((outcome, error) -> {
                    long now = System.nanoTime();
                    m.record(timedFrom, phase, outcome != null ? outcome : Outcome.transport(error), now);
                    // Only once recorded: the run ends when nothing is in flight.
                    inFlight.decrementAndGet();
                    return null;
                });
    }

    private void runClosedLoop(Measurement m, LoadSpec spec, AtomicInteger inFlight) throws InterruptedException {
        long end = m.measureFromNanos + spec.duration().toNanos();
        AtomicLong measuredSent = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> workers = new ArrayList<>();
        waitUntil(m.startNanos);
        for (int w = 0; w < spec.connections(); w++) {
            workers.add(Thread.ofVirtual().name("tern-bench-worker-" + w).start(() -> {
                while (!stop.get()) {
                    long now = System.nanoTime();
                    if (now - end >= 0) {
                        return;
                    }
                    int phase = now - m.measureFromNanos < 0 ? Measurement.WARMUP : 0;
                    if (phase == 0 && spec.maxRequests() > 0 && measuredSent.incrementAndGet() > spec.maxRequests()) {
                        stop.set(true);
                        return;
                    }
                    send(m, now, phase, spec.requestTimeout(), inFlight).join();
                }
            }));
        }
        long joinDeadline = end + spec.requestTimeout().toNanos() + TimeUnit.SECONDS.toNanos(5);
        for (Thread worker : workers) {
            long left = joinDeadline - System.nanoTime();
            if (left <= 0 || !worker.join(Duration.ofNanos(left))) {
                stop.set(true);
            }
        }
        stop.set(true);
    }

    private static void awaitDrained(AtomicInteger inFlight, Duration max) {
        long deadline = System.nanoTime() + max.toNanos();
        while (inFlight.get() > 0 && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(1_000_000);
        }
    }

    @Override
    public void close() {
        target.close();
    }

    /** Once a second: the time series and progress; at the warm-up's end and the run's end: process samples. */
    private final class Ticker {
        private final Measurement m;
        private final LoadSpec spec;
        private final ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tern-bench-ticker");
            t.setDaemon(true);
            return t;
        });
        private final List<SeriesPoint> series = new ArrayList<>();
        private ScheduledFuture<?> ticks;
        private Histogram recycled;
        private long lastCompleted;
        private long lastErrors;
        private ProcessSampler.Sample lastSample;
        private ProcessSampler.Sample atMeasureStart;
        private long lastTick;
        private long rssMax;
        private AtomicInteger inFlight;

        Ticker(Measurement m, LoadSpec spec) {
            this.m = m;
            this.spec = spec;
        }

        void start(AtomicInteger inFlightCounter) {
            this.inFlight = inFlightCounter;
            lastTick = m.startNanos;
            lastSample = sample();
            if (spec.warmup().isZero()) {
                atMeasureStart = lastSample;
            } else {
                clock.schedule(() -> {
                    synchronized (this) {
                        atMeasureStart = sample();
                    }
                }, m.measureFromNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
            }
            ticks = clock.scheduleAtFixedRate(this::tick, m.startNanos + 1_000_000_000L - System.nanoTime(),
                    1_000_000_000L, TimeUnit.NANOSECONDS);
        }

        private ProcessSampler.Sample sample() {
            ProcessSampler.Sample s = sampler == null ? null : sampler.sample();
            if (s != null) {
                rssMax = Math.max(rssMax, s.rssBytes());
            }
            return s;
        }

        private synchronized void tick() {
            long now = System.nanoTime();
            recycled = m.intervalHistogram(recycled);
            long completed = m.completedAll();
            long errors = m.errorsAll();
            ProcessSampler.Sample s = sample();
            Double cpu = null;
            if (s != null && lastSample != null) {
                cpu = Figures.round3(100d * (s.cpuNanos() - lastSample.cpuNanos()) / (now - lastTick));
            }
            double second = Figures.round3((now - m.startNanos) / 1e9);
            boolean warmup = now - m.measureFromNanos < 0;
            series.add(new SeriesPoint(second, warmup, completed - lastCompleted,
                    errors - lastErrors, Latency.ms(recycled.getValueAtPercentile(50)),
                    Latency.ms(recycled.getValueAtPercentile(99)), Latency.ms(recycled.getMaxValue()), cpu,
                    s == null ? null : s.rssBytes()));
            double total = (spec.warmup().toNanos() + spec.duration().toNanos()) / 1e9;
            try {
                progress.accept(new Progress(second, total, warmup, completed,
                        (completed - lastCompleted) * 1e9 / (now - lastTick),
                        Latency.ms(recycled.getValueAtPercentile(99)), errors, inFlight.get()));
            } catch (RuntimeException e) {
                // a failing listener must not stop the figures
            }
            lastCompleted = completed;
            lastErrors = errors;
            lastSample = s;
            lastTick = now;
        }

        void stop() {
            ticks.cancel(false);
            clock.shutdown();
            try {
                clock.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            // The last, partial interval: replies after the last whole second belong in the series too.
            if (System.nanoTime() - lastTick > 100_000_000L) {
                tick();
            }
        }

        synchronized List<SeriesPoint> series() {
            return List.copyOf(series);
        }

        synchronized ProcessFigures processFigures(Measurement measurement) {
            if (sampler == null || atMeasureStart == null) {
                return null;
            }
            ProcessSampler.Sample end = sample();
            if (end == null) {
                return null;
            }
            double cpuSeconds = (end.cpuNanos() - atMeasureStart.cpuNanos()) / 1e9;
            long calls = measurement.measuredCount();
            return new ProcessFigures(sampler.pid(), Figures.round3(cpuSeconds),
                    calls == 0 ? 0 : Figures.round3(cpuSeconds * 1e6 / calls), rssMax, end.rssBytes());
        }
    }
}
