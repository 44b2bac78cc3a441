package dev.tern.bench;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How to load a target.
 *
 * <p>Open loop: requests are sent at a constant arrival rate (or a sequence of rates, {@link #steps}) whatever the
 * target does, and each is timed from its intended send time, so a stalled server shows in the tail instead of
 * slowing the load down. Closed loop: {@link #connections} workers each send a request as soon as their previous one
 * is answered, timed from the actual send; this measures saturation throughput.
 *
 * @param open open loop (rate) or closed loop (connections)
 * @param steps open loop: the rates and how long each lasts, in order (one step for a constant rate)
 * @param connections closed loop: concurrent workers (for HTTP/2, concurrent streams)
 * @param warmup run before measuring, at the first step's rate; excluded from every figure but the time series
 * @param duration closed loop: how long to measure; open loop: the sum of the steps
 * @param maxRequests stop sending after this many measured requests; 0 for no bound but time
 * @param maxInFlight open loop: requests outstanding at once; a request due when the bound is reached is not sent and
 *     counts as {@link Outcome.Status#OVERFLOW}
 * @param requestTimeout a request without a reply by then counts as {@link Outcome.Status#TIMEOUT}
 * @param pacing open loop: requests due within this time of the one being sent go with it, each timed from its own
 *     send; a coarser pacing wakes the load generator less often (each wake-up costs it a context switch), a finer
 *     one offers a smoother load
 */
public record LoadSpec(boolean open, List<RateStep> steps, int connections, Duration warmup, Duration duration,
        long maxRequests, int maxInFlight, Duration requestTimeout, Duration pacing) {

    /** One stretch of an open-loop run at a constant rate. */
    public record RateStep(double rate, Duration duration) {
        public RateStep {
            if (!(rate > 0) || Double.isInfinite(rate)) {
                throw new IllegalArgumentException("rate: " + rate + " (expected: > 0 requests/s)");
            }
            positive(duration, "step duration");
        }
    }

    public LoadSpec {
        steps = List.copyOf(steps);
        Objects.requireNonNull(warmup, "warmup");
        Objects.requireNonNull(requestTimeout, "requestTimeout");
        if (open) {
            if (steps.isEmpty()) {
                throw new IllegalArgumentException("steps: none (expected: at least one rate step)");
            }
            duration = steps.stream().map(RateStep::duration).reduce(Duration.ZERO, Duration::plus);
        } else if (connections <= 0) {
            throw new IllegalArgumentException("connections: " + connections + " (expected: > 0)");
        }
        positive(duration, "duration");
        if (warmup.isNegative()) {
            throw new IllegalArgumentException("warmup: " + warmup + " (expected: >= 0)");
        }
        if (maxRequests < 0) {
            throw new IllegalArgumentException("maxRequests: " + maxRequests + " (expected: >= 0)");
        }
        if (maxInFlight <= 0) {
            throw new IllegalArgumentException("maxInFlight: " + maxInFlight + " (expected: > 0)");
        }
        positive(requestTimeout, "requestTimeout");
        Objects.requireNonNull(pacing, "pacing");
        if (pacing.isNegative() || pacing.compareTo(MAX_PACING) > 0) {
            throw new IllegalArgumentException("pacing: " + pacing + " (expected: from 0 to " + MAX_PACING + ")");
        }
    }

    /** Below the 512 connections per client address a Tern server accepts, as HTTP/1.1 needs one per request. */
    static final int DEFAULT_MAX_IN_FLIGHT = 500;
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
    /** At 20,000 requests a second this costs the load generator a fifth less CPU than 50 µs (client-cost). */
    public static final String DEFAULT_PACING_TEXT = "0.2ms";
    public static final Duration DEFAULT_PACING = Durations.parse(DEFAULT_PACING_TEXT);
    static final Duration MAX_PACING = Duration.ofMillis(10);

    /** Open loop at a constant rate for the given time, no warm-up. */
    public static LoadSpec openLoop(double rate, Duration duration) {
        return new LoadSpec(true, List.of(new RateStep(rate, duration)), 0, Duration.ZERO, duration, 0,
                DEFAULT_MAX_IN_FLIGHT, DEFAULT_TIMEOUT, DEFAULT_PACING);
    }

    /** Open loop through the given rates in order. */
    public static LoadSpec steps(List<RateStep> steps) {
        return new LoadSpec(true, steps, 0, Duration.ZERO, Duration.ZERO, 0, DEFAULT_MAX_IN_FLIGHT, DEFAULT_TIMEOUT,
                DEFAULT_PACING);
    }

    /** A burst: {@code low} for {@code each}, then {@code high} for {@code each}, then {@code low} again. */
    public static LoadSpec burst(double low, double high, Duration each) {
        return steps(List.of(new RateStep(low, each), new RateStep(high, each), new RateStep(low, each)));
    }

    /** Closed loop with the given number of workers for the given time, no warm-up. */
    public static LoadSpec closedLoop(int connections, Duration duration) {
        return new LoadSpec(false, List.of(), connections, Duration.ZERO, duration, 0, DEFAULT_MAX_IN_FLIGHT,
                DEFAULT_TIMEOUT, DEFAULT_PACING);
    }

    public LoadSpec withWarmup(Duration value) {
        return new LoadSpec(open, steps, connections, value, duration, maxRequests, maxInFlight,
                requestTimeout, pacing);
    }

    public LoadSpec withMaxRequests(long value) {
        return new LoadSpec(open, steps, connections, warmup, duration, value, maxInFlight,
                requestTimeout, pacing);
    }

    public LoadSpec withMaxInFlight(int value) {
        return new LoadSpec(open, steps, connections, warmup, duration, maxRequests, value,
                requestTimeout, pacing);
    }

    public LoadSpec withRequestTimeout(Duration value) {
        return new LoadSpec(open, steps, connections, warmup, duration, maxRequests, maxInFlight,
                value, pacing);
    }

    public LoadSpec withPacing(Duration value) {
        return new LoadSpec(open, steps, connections, warmup, duration, maxRequests, maxInFlight,
                requestTimeout, value);
    }

    /** The first (or only) rate of an open-loop run; 0 for closed loop. */
    public double rate() {
        return open ? steps.get(0).rate() : 0;
    }

    /** A short description: {@code open loop 5000/s} or {@code closed loop, 32 connections}. */
    public String describe() {
        if (!open) {
            return "closed loop, " + connections + (connections == 1 ? " connection" : " connections");
        }
        StringBuilder b = new StringBuilder("open loop ");
        String sep = "";
        for (RateStep s : steps) {
            b.append(sep).append(Figures.number(s.rate())).append("/s");
            if (steps.size() > 1) {
                b.append(" for ").append(Figures.duration(s.duration()));
            }
            sep = ", ";
        }
        return b.toString();
    }

    private static void positive(Duration d, String what) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + ": " + d + " (expected: > 0)");
        }
    }
}
