package dev.tern.redis;

/**
 * Every key Tern keeps in Redis. A session's keys carry its id as a hash tag ({@code {id}}), so that in a Redis
 * Cluster they share a slot and one script or multi-key command may touch them together.
 */
final class Keys {
    private static final String PREFIX = "tern:";

    private Keys() {
    }

    /** The pub/sub channel on which nodes tell each other what their clients must hear of. */
    static final String NOTICES = PREFIX + "notices";

    /** A legacy session's principal, state and revision (a hash). */
    static String session(String sessionId) {
        return PREFIX + "{" + sessionId + "}:s";
    }

    /** The events of one SSE stream of a session (a Redis Stream). */
    static String events(String sessionId, String streamId) {
        return PREFIX + "{" + sessionId + "}:ev:" + streamId;
    }

    /** The names of a session's event streams (a set), so that they can be deleted with the session. */
    static String eventStreams(String sessionId) {
        return PREFIX + "{" + sessionId + "}:evs";
    }

    /** One task's record as JSON (a string), expiring with the task's ttl. */
    static String task(String taskId) {
        return PREFIX + "{t:" + taskId + "}:t";
    }

    /** The ids of one owner's tasks (a sorted set, scored by creation time), so that tasks/list finds them. */
    static String ownerTasks(String owner) {
        return PREFIX + "{to:" + owner + "}:ts";
    }

    /** Tasks accepted and not finished yet (a Redis Stream read by one consumer group), so another node can run them again. */
    static final String TASK_QUEUE = PREFIX + "{tasks}:q";

    /** Queued tasks delivered too often without finishing (a Redis Stream), in the queue's slot. */
    static final String DEAD_TASKS = PREFIX + "{tasks}:dead";

    /** Which node runs a queued task right now (a string expiring unless renewed), in the queue's slot. */
    static String taskLease(String taskId) {
        return PREFIX + "{tasks}:lease:" + taskId;
    }
}
