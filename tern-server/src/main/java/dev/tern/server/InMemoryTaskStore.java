package dev.tern.server;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Tasks in a map, dropped when their ttl has passed. Bounded: beyond {@code maxTasks} the oldest finished tasks are
 * evicted, and if none is finished a new task is refused. Thread-safe.
 */
public final class InMemoryTaskStore implements TaskStore {
    private final Map<String, TaskRecord> tasks = new ConcurrentHashMap<>();
    private final int maxTasks;
    private final Clock clock;

    public InMemoryTaskStore() {
        this(10_000, Clock.systemUTC());
    }

    public InMemoryTaskStore(int maxTasks, Clock clock) {
        if (maxTasks <= 0) {
            throw new IllegalArgumentException("maxTasks: " + maxTasks + " (expected: > 0)");
        }
        this.maxTasks = maxTasks;
        this.clock = clock;
    }

    @Override
    public void save(TaskRecord task) {
        if (!tasks.containsKey(task.taskId()) && tasks.size() >= maxTasks) {
            evict();
            if (tasks.size() >= maxTasks) {
                throw new IllegalStateException("too many tasks: " + tasks.size());
            }
        }
        tasks.put(task.taskId(), task);
    }

    @Override
    public Optional<TaskRecord> find(String taskId) {
        TaskRecord t = tasks.get(taskId);
        if (t != null && t.expired(clock.instant())) {
            tasks.remove(taskId, t);
            return Optional.empty();
        }
        return Optional.ofNullable(t);
    }

    @Override
    public List<TaskRecord> list(String owner) {
        List<TaskRecord> found = new ArrayList<>();
        for (TaskRecord t : tasks.values()) {
            if (t.owner().equals(owner) && !t.expired(clock.instant())) {
                found.add(t);
            }
        }
        found.sort(Comparator.comparing(TaskRecord::createdAt).thenComparing(TaskRecord::taskId));
        return found;
    }

    @Override
    public void delete(String taskId) {
        tasks.remove(taskId);
    }

    private void evict() {
        var now = clock.instant();
        tasks.values().removeIf(t -> t.expired(now));
        if (tasks.size() < maxTasks) {
            return;
        }
        tasks.values().stream().filter(t -> t.status().terminal())
                .sorted(Comparator.comparing(TaskRecord::lastUpdatedAt))
                .limit(Math.max(1, maxTasks / 10))
                .forEach(t -> tasks.remove(t.taskId()));
    }
}
