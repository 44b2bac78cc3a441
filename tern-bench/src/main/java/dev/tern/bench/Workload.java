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

    private Workload(Map<Operation, Integer> weights) {
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

    public Operation next() {
        return sequence[(int) (next.getAndIncrement() % sequence.length)];
    }

    public Map<Operation, Integer> weights() {
        return weights;
    }

    @Override
    public String toString() {
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
