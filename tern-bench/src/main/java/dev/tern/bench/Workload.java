package dev.tern.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The requests of a run: one operation, or a weighted mix served in a fixed interleaved order (so that every
 * stretch of the run carries the mix, not only the run as a whole). Thread-safe.
 */
public final class Workload {
    private final Operation[] sequence;
    private final Map<Operation, Integer> weights;
    private final AtomicLong next = new AtomicLong();
    /** Set for a Zipf workload: its operations by rank and the cumulative probability of each rank. */
    private final Operation[] ranked;
    private final double[] cumulative;
    private final String description;

    private Workload(Operation[] ranked, double[] cumulative, String description) {
        this.sequence = new Operation[] {ranked[0]};
        this.weights = Map.of(ranked[0], 1);
        this.ranked = ranked;
        this.cumulative = cumulative;
        this.description = description;
    }

    private Workload(Map<Operation, Integer> weights) {
        this.ranked = null;
        this.cumulative = null;
        this.description = null;
        this.weights = Map.copyOf(weights);
        int total = weights.values().stream().mapToInt(Integer::intValue).sum();
        this.sequence = new Operation[total];
        // Smooth weighted round robin: each slot goes to the operation furthest behind its share.
        List<Operation> ops = new ArrayList<>(weights.keySet());
        long[] current = new long[ops.size()];
        for (int slot = 0; slot < total; slot++) {
            int best = 0;
            for (int i = 0; i < ops.size(); i++) {
                current[i] += weights.get(ops.get(i));
                if (current[i] > current[best]) {
                    best = i;
                }
            }
            current[best] -= total;
            sequence[slot] = ops.get(best);
        }
    }

    public static Workload of(Operation operation) {
        return new Workload(Map.of(operation, 1));
    }

    /** A weighted mix; weights must be positive. Iteration order of the map is kept for descriptions. */
    public static Workload mix(Map<Operation, Integer> weights) {
        if (weights.isEmpty()) {
            throw new IllegalArgumentException("mix: no operations (expected: at least one)");
        }
        weights.forEach((op, w) -> {
            if (w == null || w <= 0) {
                throw new IllegalArgumentException("weight of " + op + ": " + w + " (expected: > 0)");
            }
        });
        return new Workload(new LinkedHashMap<>(weights));
    }

    /**
     * Calls {@code tool} with {@code {"<field>": "<k>"}}, k from 1 to {@code n}, drawn at random with the Zipf
     * distribution of exponent {@code exponent}: k's probability is proportional to 1 / k^exponent, so a few ids
     * take most calls, as the popular keys of a cache do.
     */
    public static Workload zipf(String tool, String field, int n, double exponent) {
        if (n < 1) {
            throw new IllegalArgumentException("zipf ids: " + n + " (expected: >= 1)");
        }
        if (!(exponent > 0) || !Double.isFinite(exponent)) {
            throw new IllegalArgumentException("zipf exponent: " + exponent + " (expected: > 0)");
        }
        Operation[] ranked = new Operation[n];
        double[] cumulative = new double[n];
        double sum = 0;
        for (int k = 1; k <= n; k++) {
            sum += 1 / Math.pow(k, exponent);
            cumulative[k - 1] = sum;
            ranked[k - 1] = Operation.callTool(tool, "{\"" + field + "\":\"" + k + "\"}");
        }
        for (int i = 0; i < n; i++) {
            cumulative[i] /= sum;
        }
        return new Workload(ranked, cumulative, "tools/call " + tool + " with " + field + " 1.." + n + " (Zipf, s="
                + exponent + ")");
    }

    public Operation next() {
        if (ranked != null) {
            int rank = java.util.Arrays.binarySearch(cumulative,
                    java.util.concurrent.ThreadLocalRandom.current().nextDouble());
            return ranked[Math.min(ranked.length - 1, rank < 0 ? -rank - 1 : rank)];
        }
        return sequence[(int) (next.getAndIncrement() % sequence.length)];
    }

    public Map<Operation, Integer> weights() {
        return weights;
    }

    @Override
    public String toString() {
        if (description != null) {
            return description;
        }
        if (weights.size() == 1) {
            return weights.keySet().iterator().next().toString();
        }
        StringBuilder b = new StringBuilder("mix");
        String sep = " ";
        for (Operation op : distinct()) {
            b.append(sep).append(op.kind().label()).append(op.name().isEmpty() ? "" : " " + op.name())
                    .append(':').append(weights.get(op));
            sep = ", ";
        }
        return b.toString();
    }

    private List<Operation> distinct() {
        List<Operation> out = new ArrayList<>();
        for (Operation op : sequence) {
            if (!out.contains(op)) {
                out.add(op);
            }
        }
        return out;
    }
}
