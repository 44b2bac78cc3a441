package dev.tern.server;

import java.util.List;
import java.util.Optional;

/**
 * Where tasks live between the request that starts them and the requests that poll them. The in-memory store is the
 * default; a shared store lets any node of a cluster answer for a task. Implementations must be thread-safe and must
 * not return expired tasks.
 */
public interface TaskStore {

    /** Creates or replaces a task. */
    void save(TaskRecord task);

    Optional<TaskRecord> find(String taskId);

    /** The tasks of one owner, oldest first. */
    List<TaskRecord> list(String owner);

    void delete(String taskId);
}
