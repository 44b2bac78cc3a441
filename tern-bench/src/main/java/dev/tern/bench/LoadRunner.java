package dev.tern.bench;

import java.time.Duration;
import java.util.ArrayDeque;
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

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;

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

                @Override
                public void tlsHandshakeFailed(String detail) {
                    current.tlsHandshakeFailed(detail);
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
        ScheduledExecutorService io = target.ioThread();
        Deadlines deadlines = io == null ? null : new Deadlines(io, m, spec.requestTimeout());
        ticker.start(inFlight);
        try {
            if (spec.open()) {
                runOpenLoop(m, spec, inFlight, deadlines);
            } else {
                runClosedLoop(m, spec, inFlight, deadlines);
            }
            awaitDrained(inFlight, spec.requestTimeout().plusSeconds(2));
        } finally {
            if (deadlines != null) {
                deadlines.stop();
            }
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

    private void runOpenLoop(Measurement m, LoadSpec spec, AtomicInteger inFlight, Deadlines deadlines)
            throws Exception {
        if (deadlines != null) {
            Paced paced = new Paced(deadlines, m, spec, inFlight);
            deadlines.io.execute(paced);
            awaitEnd(paced.done, m.startNanos + spec.warmup().toNanos() + spec.duration().toNanos(), spec);
            return;
        }
        Schedule schedule = new Schedule(m, spec);
        long pacingNanos = spec.pacing().toNanos();
        while (schedule.next()) {
            waitUntilWithin(schedule.intended, pacingNanos);
            sendOrRefuse(m, schedule.intended, schedule.phase, spec, inFlight, null);
        }
    }

    /** The instants of an open loop's requests: the warm-up at the first rate, then each rate step in turn. */
    private static final class Schedule {
        private final List<LoadSpec.RateStep> segments = new ArrayList<>();
        private final int firstPhase;
        private final long maxRequests;
        private int segment = -1;
        private long index;
        private long segmentStart;
        private long length;
        private double interval;
        private long measuredSent;
        /** 0 in the warm-up, 1 after it: what a request adds to the measured count (no branch on the phase). */
        private long counts;
        /** The measured requests this segment may take the count to. */
        private long limit;
        long intended;
        int phase;

        Schedule(Measurement m, LoadSpec spec) {
            if (!spec.warmup().isZero()) {
                segments.add(new LoadSpec.RateStep(spec.rate(), spec.warmup()));
            }
            segments.addAll(spec.steps());
            firstPhase = spec.warmup().isZero() ? 0 : -1;
            maxRequests = spec.maxRequests();
            segmentStart = m.startNanos;
        }

        /** Moves to the next request; false once the schedule, or the measured request count, is used up. */
        boolean next() {
            while (true) {
                if (segment >= 0) {
                    long offset = (long) (index * interval);
                    if (offset < length) {
                        if (measuredSent >= limit) {
                            return false;
                        }
                        index++;
                        intended = segmentStart + offset;
                        measuredSent += counts;
                        return true;
                    }
                    segmentStart += length;
                }
                if (++segment >= segments.size()) {
                    return false;
                }
                LoadSpec.RateStep step = segments.get(segment);
                phase = firstPhase + segment;
                counts = phase == Measurement.WARMUP ? 0 : 1;
                limit = phase == Measurement.WARMUP || maxRequests <= 0 ? Long.MAX_VALUE : maxRequests;
                length = step.duration().toNanos();
                interval = 1e9 / step.rate();
                index = 0;
            }
        }
    }

    /**
     * An open loop run on the target's I/O thread: each turn sends what is due within the pacing, then sleeps until the
     * next is due.
     */
    private final class Paced implements Runnable {
        final CompletableFuture<Void> done = new CompletableFuture<>();
        private final ScheduledExecutorService io;
        private final Deadlines deadlines;
        private final Measurement m;
        private final LoadSpec spec;
        private final AtomicInteger inFlight;
        private final Schedule schedule;
        private final long pacingNanos;
        private boolean pending;

        Paced(Deadlines deadlines, Measurement m, LoadSpec spec, AtomicInteger inFlight) {
            this.io = deadlines.io;
            this.deadlines = deadlines;
            this.m = m;
            this.spec = spec;
            this.inFlight = inFlight;
            this.schedule = new Schedule(m, spec);
            this.pacingNanos = spec.pacing().toNanos();
            this.pending = schedule.next();
        }

        @Override
        public void run() {
            try {
                while (pending) {
                    long wait = schedule.intended - System.nanoTime();
                    if (wait > pacingNanos) {
                        io.schedule(this, wait, TimeUnit.NANOSECONDS);
                        return;
                    }
                    sendOrRefuse(m, schedule.intended, schedule.phase, spec, inFlight, deadlines);
                    pending = schedule.next();
                }
                done.complete(null);
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        }
    }

    private void sendOrRefuse(Measurement m, long intended, int phase, LoadSpec spec, AtomicInteger inFlight,
            Deadlines deadlines) {
        if (inFlight.get() >= spec.maxInFlight()) {
            m.record(intended, phase, Outcome.failed(Outcome.Status.OVERFLOW,
                    "more than " + spec.maxInFlight() + " requests in flight"), System.nanoTime());
        } else {
            send(m, intended, phase, spec.requestTimeout(), inFlight, deadlines);
        }
    }

    /**
     * Parks until {@code instant}, or returns at once when it is at most {@code slackNanos} away. Waking at the instant,
     * not ahead of it, keeps an open loop on its schedule instead of running ahead by the slack.
     */
    private static void waitUntilWithin(long instant, long slackNanos) {
        long wait;
        while ((wait = instant - System.nanoTime()) > slackNanos) {
            LockSupport.parkNanos(wait);
        }
    }

    /**
     * Sends one request; its latency counts from {@code intended}, or from the actual send if that was earlier. On
     * the target's I/O thread, {@code deadlines} keeps its timeout; elsewhere (null) the timer wheel does.
     */
    private CompletableFuture<Void> send(Measurement m, long intended, int phase, Duration timeout,
            AtomicInteger inFlight, Deadlines deadlines) {
        inFlight.incrementAndGet();
        long sent = System.nanoTime();
        long timedFrom = Math.min(intended, sent);
        CompletableFuture<Outcome> reply;
        try {
            reply = target.call(workload.next());
        } catch (RuntimeException e) {
            reply = CompletableFuture.completedFuture(Outcome.transport(e));
        }
        CompletableFuture<Outcome> answer = reply;
        Timeout timer = null;
        if (deadlines != null) {
            deadlines.add(answer, sent);
        } else if (!answer.isDone()) {
            timer = Timeouts.WHEEL.newTimeout(t -> answer.complete(m.timeoutOutcome), timeout.toNanos(),
                    TimeUnit.NANOSECONDS);
        }
        Timeout armed = timer;
        return answer.handle((outcome, error) -> {
            if (armed != null) {
                armed.cancel();
            }
            long now = System.nanoTime();
            m.record(timedFrom, phase, outcome != null ? outcome : Outcome.transport(error), now);
            // Only once recorded: the run ends when nothing is in flight.
            inFlight.decrementAndGet();
            return null;
        });
    }

    /**
     * Request timeouts on one timer wheel: arming and cancelling one is a queue operation, where a scheduled executor
     * would wake its thread once per request to drop the cancelled task.
     */
    private static final class Timeouts {
        static final HashedWheelTimer WHEEL = new HashedWheelTimer(
                r -> Thread.ofPlatform().daemon().name("tern-bench-timeouts").unstarted(r),
                10, TimeUnit.MILLISECONDS, 512);
    }

    /**
     * The request timeouts of a run on the target's I/O thread, kept on that thread: every request's is as long, so
     * they fall due in the order the requests went out, and a queue looked at every tick does the work of a timer
     * wheel without the wheel's thread and the hand-offs to it. Touched on the I/O thread only, but for {@link #stop}.
     */
    private static final class Deadlines implements Runnable {
        private static final long TICK_NANOS = 10_000_000;
        final ScheduledExecutorService io;
        private final Outcome timeoutOutcome;
        private final long timeoutNanos;
        private final ArrayDeque<Pending> queue = new ArrayDeque<>();
        private final ScheduledFuture<?> ticks;

        private record Pending(CompletableFuture<Outcome> answer, long deadline) { }

        Deadlines(ScheduledExecutorService io, Measurement m, Duration timeout) {
            this.io = io;
            this.timeoutOutcome = m.timeoutOutcome;
            this.timeoutNanos = timeout.toNanos();
            this.ticks = io.scheduleAtFixedRate(this, TICK_NANOS, TICK_NANOS, TimeUnit.NANOSECONDS);
        }

        void add(CompletableFuture<Outcome> answer, long sentNanos) {
            if (!answer.isDone()) {
                queue.addLast(new Pending(answer, sentNanos + timeoutNanos));
            }
        }

        @Override
        public void run() {
            long now = System.nanoTime();
            Pending p;
            while ((p = queue.peekFirst()) != null && (p.answer.isDone() || now - p.deadline >= 0)) {
                queue.pollFirst();
                p.answer.complete(timeoutOutcome);
            }
        }

        void stop() {
            ticks.cancel(false);
        }
    }

    private void runClosedLoop(Measurement m, LoadSpec spec, AtomicInteger inFlight, Deadlines deadlines)
            throws Exception {
        long end = m.measureFromNanos + spec.duration().toNanos();
        if (deadlines != null) {
            Chains chains = new Chains(deadlines, m, spec, inFlight, end);
            deadlines.io.execute(chains::start);
            awaitEnd(chains.done, end, spec);
            return;
        }
        AtomicLong measuredSent = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> workers = new ArrayList<>();
        waitUntilWithin(m.startNanos, EARLY_WAKE_NANOS);
        for (int w = 0; w < spec.connections(); w++) {
            workers.add(Thread.ofVirtual().name("tern-bench-worker-" + w).start(() -> {
                while (!stop.get()) {
                    long now = System.nanoTime();
                    if (now - end >= 0) {
                        return;
                    }
                    int phase = phaseAt(now, m);
                    if (phase == 0 && spec.maxRequests() > 0 && measuredSent.incrementAndGet() > spec.maxRequests()) {
                        stop.set(true);
                        return;
                    }
                    send(m, now, phase, spec.requestTimeout(), inFlight, null).join();
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

    /**
     * A closed loop run on the target's I/O thread: each of the spec's connections is a chain that sends its next
     * request from the previous one's reply, as wrk does. Every field is touched on that thread only.
     */
    private final class Chains {
        final CompletableFuture<Void> done = new CompletableFuture<>();
        private final ScheduledExecutorService io;
        private final Deadlines deadlines;
        private final Measurement m;
        private final LoadSpec spec;
        private final AtomicInteger inFlight;
        private final long end;
        /** The measured requests the count may reach. */
        private final long limit;
        private Thread ioThread;
        private int running;
        private long measuredSent;
        private boolean stopped;

        Chains(Deadlines deadlines, Measurement m, LoadSpec spec, AtomicInteger inFlight, long end) {
            this.io = deadlines.io;
            this.deadlines = deadlines;
            this.limit = spec.maxRequests() > 0 ? spec.maxRequests() : Long.MAX_VALUE;
            this.m = m;
            this.spec = spec;
            this.inFlight = inFlight;
            this.end = end;
        }

        void start() {
            ioThread = Thread.currentThread();
            long wait = m.startNanos - System.nanoTime();
            if (wait > EARLY_WAKE_NANOS) {
                io.schedule(this::start, wait, TimeUnit.NANOSECONDS);
                return;
            }
            running = spec.connections();
            for (int c = 0; c < spec.connections(); c++) {
                step();
            }
        }

        private void step() {
            try {
                long now = System.nanoTime();
                int phase = phaseAt(now, m);
                measuredSent += phase + 1;
                if (measuredSent > limit) {
                    stopped = true;
                }
                if (stopped || now - end >= 0) {
                    if (--running == 0) {
                        done.complete(null);
                    }
                    return;
                }
                CompletableFuture<Void> sent = send(m, now, phase, spec.requestTimeout(), inFlight, deadlines);
                if (sent.isDone()) {
                    // A reply that came at once goes through the queue, so that a chain never recurses.
                    io.execute(this::step);
                } else {
                    sent.whenComplete((v, e) -> {
                        if (Thread.currentThread() == ioThread) {
                            step();
                        } else {
                            io.execute(this::step);
                        }
                    });
                }
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        }
    }

    /**
     * The phase of a closed loop's request sent at {@code now}: {@link Measurement#WARMUP} (-1) before the measured
     * time, 0 from it; worked out without a branch, which the warm-up would leave untaken and so uncompiled until the
     * measured time. A loop may wake a little before the start; a request sent then counts as sent at the start, so
     * that with no warm-up it is measured.
     */
    private static int phaseAt(long now, Measurement m) {
        return (int) ((Math.max(now, m.startNanos) - m.measureFromNanos) >> 63);
    }

    /** Waits for a loop run on the I/O thread to end, at most a request timeout and a margin past its last send. */
    private static void awaitEnd(CompletableFuture<Void> done, long lastSendNanos, LoadSpec spec) throws Exception {
        long deadline = lastSendNanos + spec.requestTimeout().toNanos() + TimeUnit.SECONDS.toNanos(5);
        try {
            done.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("the load did not end within a request timeout of its last send", e);
        }
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
