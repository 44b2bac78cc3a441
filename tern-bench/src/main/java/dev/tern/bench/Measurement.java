package dev.tern.bench;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.HdrHistogram.Recorder;

/** The figures of one run as they accumulate; recorded into from any thread. */
final class Measurement implements ConnectionObserver {
    static final int WARMUP = -1;

    final long startNanos;
    final long measureFromNanos;
    private final int phases;

    private final ConcurrentHistogram latency = histogram();
    private final ConcurrentHistogram ttfb = histogram();
    private final ConcurrentHistogram connect = histogram();
    private final ConcurrentHistogram tlsFull = histogram();
    private final ConcurrentHistogram tlsResumed = histogram();
    private final LongAdder tlsFailed = new LongAdder();
    private volatile String tlsFailure;
    private final ConcurrentHistogram parse = histogram();
    private final ConcurrentHistogram queue = histogram();
    private final ConcurrentHistogram exec = histogram();
    private final ConcurrentHistogram serialize = histogram();
    private final LongAdder serverTimed = new LongAdder();
    private final ConcurrentHistogram[] phaseLatency;
    private final LongAdder[] phaseCompleted;
    private final LongAdder[] phaseErrors;

    private final LongAdder measured = new LongAdder();
    private final LongAdder measuredOk = new LongAdder();
    private final Map<Outcome.Status, LongAdder> errors = new ConcurrentHashMap<>();
    private final Map<Outcome.Status, String> errorSamples = new ConcurrentHashMap<>();
    private final AtomicLong lastMeasuredCompletion = new AtomicLong();

    private final Recorder interval = new Recorder(3);
    private final LongAdder completedAll = new LongAdder();
    private final LongAdder errorsAll = new LongAdder();
    private volatile boolean closed;

    /** What a request without a reply in time becomes (made once per run, not per request). */
    final Outcome timeoutOutcome;

    Measurement(long startNanos, long measureFromNanos, int phases, Outcome timeoutOutcome) {
        this.timeoutOutcome = timeoutOutcome;
        this.startNanos = startNanos;
        this.measureFromNanos = measureFromNanos;
        this.phases = phases;
        this.phaseLatency = new ConcurrentHistogram[phases];
        this.phaseCompleted = new LongAdder[phases];
        this.phaseErrors = new LongAdder[phases];
        for (int i = 0; i < phases; i++) {
            phaseLatency[i] = histogram();
            phaseCompleted[i] = new LongAdder();
            phaseErrors[i] = new LongAdder();
        }
    }

    private static ConcurrentHistogram histogram() {
        return new ConcurrentHistogram(3);
    }

    /**
     * Records one completed (or failed, or never sent) request.
     *
     * @param timedFrom the instant its latency counts from: the intended send time in open loop, the actual one in
     *     closed loop
     * @param phase the rate step it belongs to, or {@link #WARMUP}
     */
    void record(long timedFrom, int phase, Outcome outcome, long now) {
        if (closed) {
            return;
        }
        boolean answered = outcome.status().answered();
        long nanos = Math.max(1, now - timedFrom);
        completedAll.increment();
        if (!outcome.isOk()) {
            errorsAll.increment();
        }
        if (answered) {
            interval.recordValue(nanos);
        }
        if (phase == WARMUP) {
            return;
        }
        measured.increment();
        lastMeasuredCompletion.accumulateAndGet(now, Math::max);
        phaseCompleted[phase].increment();
        if (outcome.isOk()) {
            measuredOk.increment();
        } else {
            errors.computeIfAbsent(outcome.status(), s -> new LongAdder()).increment();
            errorSamples.putIfAbsent(outcome.status(), outcome.detail());
            phaseErrors[phase].increment();
        }
        if (!answered) {
            return;
        }
        latency.recordValue(nanos);
        phaseLatency[phase].recordValue(nanos);
        if (outcome.sentNanos() != 0 && outcome.firstByteNanos() != 0 && outcome.firstByteNanos() >= outcome.sentNanos()) {
            ttfb.recordValue(Math.max(1, outcome.firstByteNanos() - outcome.sentNanos()));
        }
        ServerTiming st = outcome.serverTiming();
        if (st != null) {
            serverTimed.increment();
            recordIfKnown(parse, st.parseNanos());
            recordIfKnown(queue, st.queueNanos());
            recordIfKnown(exec, st.execNanos());
            recordIfKnown(serialize, st.serializeNanos());
        }
    }

    private static void recordIfKnown(ConcurrentHistogram h, long nanos) {
        if (nanos >= 0) {
            h.recordValue(Math.max(1, nanos));
        }
    }

    // Connections reported once the run has closed are left out: summing a histogram up while it is recorded into
    // fails (HdrHistogram's iteration checks its count), and a run that opens connections all through has late ones.
    @Override
    public void connected(long connectNanos) {
        if (!closed) {
            connect.recordValue(Math.max(1, connectNanos));
        }
    }

    @Override
    public void tlsHandshake(long handshakeNanos, boolean resumed) {
        if (!closed) {
            (resumed ? tlsResumed : tlsFull).recordValue(Math.max(1, handshakeNanos));
        }
    }

    @Override
    public void tlsHandshakeFailed(String detail) {
        if (closed) {
            return;
        }
        tlsFailed.increment();
        if (tlsFailure == null) {
            tlsFailure = detail;
        }
    }

    /** Adopts connections reported before the run began (while the target was opened). */
    void adoptConnections(Measurement earlier) {
        connect.add(earlier.connect);
        tlsFull.add(earlier.tlsFull);
        tlsResumed.add(earlier.tlsResumed);
        tlsFailed.add(earlier.tlsFailed.sum());
        if (tlsFailure == null) {
            tlsFailure = earlier.tlsFailure;
        }
    }

    /** Ignores whatever completes from now on (a reply later than the run's drain deadline). */
    void close() {
        closed = true;
    }

    long completedAll() {
        return completedAll.sum();
    }

    long errorsAll() {
        return errorsAll.sum();
    }

    long measuredCount() {
        return measured.sum();
    }

    /** The latencies recorded since the last call (warm-up included). */
    Histogram intervalHistogram(Histogram recycle) {
        return recycle == null ? interval.getIntervalHistogram() : interval.getIntervalHistogram(recycle);
    }

    RunResult result(String name, String target, String workload, LoadSpec spec, List<Double> phaseSeconds,
            ProcessFigures process, List<SeriesPoint> series) {
        long last = lastMeasuredCompletion.get();
        double seconds = last > measureFromNanos ? (last - measureFromNanos) / 1e9 : spec.duration().toNanos() / 1e9;
        long requests = measured.sum();
        Map<String, Long> errorCounts = new LinkedHashMap<>();
        Map<String, String> samples = new LinkedHashMap<>();
        Map<Outcome.Status, LongAdder> ordered = new EnumMap<>(Outcome.Status.class);
        ordered.putAll(errors);
        ordered.forEach((status, count) -> {
            errorCounts.put(status.key(), count.sum());
            samples.put(status.key(), errorSamples.getOrDefault(status, ""));
        });
        List<PhaseResult> phaseResults = null;
        if (phases > 1) {
            phaseResults = new ArrayList<>();
            for (int i = 0; i < phases; i++) {
                double s = phaseSeconds.get(i);
                long n = phaseCompleted[i].sum();
                phaseResults.add(new PhaseResult(spec.steps().get(i).rate(), s, n, phaseErrors[i].sum(),
                        Figures.round3(n / s), Latency.of(phaseLatency[i])));
            }
        }
        TlsFigures tls = null;
        long full = tlsFull.getTotalCount();
        long resumed = tlsResumed.getTotalCount();
        long failed = tlsFailed.sum();
        if (full + resumed + failed > 0) {
            tls = new TlsFigures(full, resumed, full + resumed == 0 ? 0
                    : Figures.round3(resumed / (double) (full + resumed)), Latency.of(tlsFull),
                    Latency.of(tlsResumed), failed, tlsFailure);
        }
        ServerSplit split = serverTimed.sum() == 0 ? null : new ServerSplit(serverTimed.sum(), Latency.of(parse),
                Latency.of(queue), Latency.of(exec), Latency.of(serialize));
        return new RunResult(name, target, workload, spec.open() ? "open" : "closed", spec.rate(),
                spec.open() ? 0 : spec.connections(), Figures.round3(spec.warmup().toNanos() / 1e9),
                Figures.round3(seconds), requests, measuredOk.sum(), errorCounts, samples,
                Figures.round3(requests / seconds), Latency.of(latency), percentiles(latency), Latency.of(ttfb),
                Latency.of(connect), tls, split, process, phaseResults, series);
    }

    private static List<PercentilePoint> percentiles(Histogram recorded) {
        List<PercentilePoint> points = new ArrayList<>();
        Histogram h = recorded.copy();
        if (h.getTotalCount() == 0) {
            return points;
        }
        for (HistogramIterationValue v : h.percentiles(5)) {
            double p = v.getPercentileLevelIteratedTo();
            PercentilePoint point = new PercentilePoint(Math.min(100, Math.round(p * 10_000d) / 10_000d),
                    Latency.ms(v.getValueIteratedTo()));
            if (points.isEmpty() || points.get(points.size() - 1).percentile() < point.percentile()) {
                points.add(point);
            }
            if (p >= 100) {
                break;
            }
        }
        return points;
    }
}
