package dev.tern.bench;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
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

    private final ConcurrentHistogram connect = histogram();
    private final ConcurrentHistogram tlsFull = histogram();
    private final ConcurrentHistogram tlsResumed = histogram();
    private final LongAdder tlsFailed = new LongAdder();
    private volatile String tlsFailure;
    /** The measured requests' figures; the warm-up's go to a tally of their own that no result reads. */
    private final Tally measuredTally = new Tally();
    /** By phase + 1: the warm-up's tally first, then the measured one for every rate step. */
    private final Tally[] tallies;
    /** By phase + 1, as {@link #tallies}. */
    private final ConcurrentHistogram[] phaseLatency;
    private final LongAdder[] phaseCompleted;
    private final LongAdder[] phaseErrors;

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
        this.tallies = new Tally[phases + 1];
        this.phaseLatency = new ConcurrentHistogram[phases + 1];
        this.phaseCompleted = new LongAdder[phases + 1];
        this.phaseErrors = new LongAdder[phases + 1];
        tallies[0] = new Tally();
        for (int i = 0; i <= phases; i++) {
            if (i > 0) {
                tallies[i] = measuredTally;
            }
            phaseLatency[i] = presized();
            phaseCompleted[i] = new LongAdder();
            phaseErrors[i] = new LongAdder();
        }
    }

    private static ConcurrentHistogram histogram() {
        return new ConcurrentHistogram(3);
    }

    /**
     * A histogram for every request's latency, sized from the start for a minute (it still grows for more): growing
     * happens inside the recording, by an exception that compiled code pays for with a deoptimization.
     */
    private static ConcurrentHistogram presized() {
        ConcurrentHistogram h = new ConcurrentHistogram(1, TimeUnit.MINUTES.toNanos(1), 3);
        h.setAutoResize(true);
        return h;
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
        // The warm-up's requests take the same code as the measured ones, into figures no result reads: code that
        // only the measured phase ran would be compiled when it starts, inside the time the run measures.
        int slot = phase + 1;
        Tally t = tallies[slot];
        t.requests.increment();
        t.lastCompletion.accumulateAndGet(now, Math::max);
        phaseCompleted[slot].increment();
        if (outcome.isOk()) {
            t.ok.increment();
        } else {
            t.errors.computeIfAbsent(outcome.status(), s -> new LongAdder()).increment();
            t.errorSamples.putIfAbsent(outcome.status(), outcome.detail());
            phaseErrors[slot].increment();
        }
        if (!answered) {
            return;
        }
        t.latency.recordValue(nanos);
        phaseLatency[slot].recordValue(nanos);
        if (outcome.sentNanos() != 0 && outcome.firstByteNanos() != 0 && outcome.firstByteNanos() >= outcome.sentNanos()) {
            t.ttfb.recordValue(Math.max(1, outcome.firstByteNanos() - outcome.sentNanos()));
        }
        ServerTiming st = outcome.serverTiming();
        if (st != null) {
            t.serverTimed.increment();
            recordIfKnown(t.parse, st.parseNanos());
            recordIfKnown(t.queue, st.queueNanos());
            recordIfKnown(t.exec, st.execNanos());
            recordIfKnown(t.serialize, st.serializeNanos());
        }
    }

    /** The figures of the requests of one part of a run. */
    private static final class Tally {
        final ConcurrentHistogram latency = presized();
        final ConcurrentHistogram ttfb = presized();
        final ConcurrentHistogram parse = histogram();
        final ConcurrentHistogram queue = histogram();
        final ConcurrentHistogram exec = histogram();
        final ConcurrentHistogram serialize = histogram();
        final LongAdder serverTimed = new LongAdder();
        final LongAdder requests = new LongAdder();
        final LongAdder ok = new LongAdder();
        final Map<Outcome.Status, LongAdder> errors = new ConcurrentHashMap<>();
        final Map<Outcome.Status, String> errorSamples = new ConcurrentHashMap<>();
        final AtomicLong lastCompletion = new AtomicLong();
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
        return measuredTally.requests.sum();
    }

    /** The latencies recorded since the last call (warm-up included). */
    Histogram intervalHistogram(Histogram recycle) {
        return recycle == null ? interval.getIntervalHistogram() : interval.getIntervalHistogram(recycle);
    }

    RunResult result(String name, String target, String workload, LoadSpec spec, List<Double> phaseSeconds,
            ProcessFigures process, List<SeriesPoint> series) {
        Tally t = measuredTally;
        long last = t.lastCompletion.get();
        double seconds = last > measureFromNanos ? (last - measureFromNanos) / 1e9 : spec.duration().toNanos() / 1e9;
        long requests = t.requests.sum();
        Map<String, Long> errorCounts = new LinkedHashMap<>();
        Map<String, String> samples = new LinkedHashMap<>();
        Map<Outcome.Status, LongAdder> ordered = new EnumMap<>(Outcome.Status.class);
        ordered.putAll(t.errors);
        ordered.forEach((status, count) -> {
            errorCounts.put(status.key(), count.sum());
            samples.put(status.key(), t.errorSamples.getOrDefault(status, ""));
        });
        List<PhaseResult> phaseResults = null;
        if (phases > 1) {
            phaseResults = new ArrayList<>();
            for (int i = 0; i < phases; i++) {
                double s = phaseSeconds.get(i);
                long n = phaseCompleted[i + 1].sum();
                phaseResults.add(new PhaseResult(spec.steps().get(i).rate(), s, n, phaseErrors[i + 1].sum(),
                        Figures.round3(n / s), Latency.of(phaseLatency[i + 1])));
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
        ServerSplit split = t.serverTimed.sum() == 0 ? null : new ServerSplit(t.serverTimed.sum(), Latency.of(t.parse),
                Latency.of(t.queue), Latency.of(t.exec), Latency.of(t.serialize));
        return new RunResult(name, target, workload, spec.open() ? "open" : "closed", spec.rate(),
                spec.open() ? 0 : spec.connections(), Figures.round3(spec.warmup().toNanos() / 1e9),
                Figures.round3(seconds), requests, t.ok.sum(), errorCounts, samples,
                Figures.round3(requests / seconds), Latency.of(t.latency), percentiles(t.latency), Latency.of(t.ttfb),
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
