package dev.tern.redis;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcError;
import dev.tern.server.TaskRecord;
import dev.tern.server.TaskStatus;
import dev.tern.server.TaskStore;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Tasks in Redis, so that any node answers {@code tasks/get|result|list|cancel} for a task another node runs: one
 * JSON string per task ({@code tern:{t:id}:t}) expiring at the task's creation plus its ttl, and one sorted set of
 * task ids per owner ({@code tern:{to:owner}:ts}), its newest {@value #LISTED}, that lives as long as the owner's
 * longest-lived task. Creating a task costs two round trips, updating it one, a find one, a list one plus one per
 * listed task. Thread-safe.
 */
public final class RedisTaskStore implements TaskStore {

    /** How many ids an owner's set keeps: its newest tasks, so that a set nobody lists stays bounded. */
    static final int LISTED = 10_000;

    /**
     * Adds a new task to its owner's set, drops the oldest ids beyond {@link #LISTED}, and lets the set live at least
     * until the task expires (0: for ever).
     */
    private static final Script INDEX = new Script("""
            local added = redis.call('ZADD', KEYS[1], 'NX', ARGV[1], ARGV[2])
            redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -1 - tonumber(ARGV[4]))
            local at = tonumber(ARGV[3])
            if at == 0 then
              redis.call('PERSIST', KEYS[1])
              return 1
            end
            local current = redis.call('PEXPIRETIME', KEYS[1])
            local fresh = current == -1 and added == 1 and redis.call('ZCARD', KEYS[1]) == 1
            if fresh or (current >= 0 and current < at) then redis.call('PEXPIREAT', KEYS[1], at) end
            return 1
            """, ScriptOutputType.INTEGER);

    private final Redis redis;

    public RedisTaskStore(Redis redis) {
        this.redis = redis;
    }

    @Override
    public void save(TaskRecord task) {
        long expiresAt = task.ttlMs() == null ? 0 : task.createdAt().toEpochMilli() + task.ttlMs();
        byte[] json = encode(task);
        SetArgs args = expiresAt == 0 ? new SetArgs()
                : SetArgs.Builder.pxAt(Math.max(expiresAt, System.currentTimeMillis() + 1));
        // SET answers the value it replaced: only a new task needs indexing, so an update is one round trip.
        String key = Keys.task(task.taskId());
        byte[] previous = redis.call(key, c -> c.setGet(key, json, args));
        if (previous == null) {
            String index = Keys.ownerTasks(task.owner());
            redis.call(index, c -> INDEX.run(c, new String[] {index},
                    ascii(task.createdAt().toEpochMilli()), task.taskId().getBytes(StandardCharsets.UTF_8),
                    ascii(expiresAt), ascii(LISTED)));
        }
    }

    @Override
    public Optional<TaskRecord> find(String taskId) {
        String key = Keys.task(taskId);
        byte[] json = redis.call(key, c -> c.get(key));
        return json == null ? Optional.empty() : Optional.of(decode(json));
    }

    @Override
    public List<TaskRecord> list(String owner) {
        String index = Keys.ownerTasks(owner);
        List<byte[]> ids = redis.call(index, c -> c.zrange(index, 0, -1));
        List<TaskRecord> found = new ArrayList<>(ids.size());
        for (byte[] id : ids) {
            String taskId = new String(id, StandardCharsets.UTF_8);
            Optional<TaskRecord> task = find(taskId);
            if (task.isPresent()) {
                found.add(task.get());
            } else {
                redis.call(index, c -> c.zrem(index, id));
            }
        }
        return found;
    }

    @Override
    public void delete(String taskId) {
        find(taskId).ifPresent(task -> {
            String key = Keys.task(taskId);
            String index = Keys.ownerTasks(task.owner());
            redis.call(key, c -> c.del(key));
            redis.call(index, c -> c.zrem(index, taskId.getBytes(StandardCharsets.UTF_8)));
        });
    }

    static byte[] encode(TaskRecord t) {
        ObjectNode o = Json.object();
        o.put("taskId", t.taskId());
        o.put("owner", t.owner());
        o.put("status", t.status().name());
        if (t.statusMessage() != null) {
            o.put("statusMessage", t.statusMessage());
        }
        o.put("createdAt", t.createdAt().toString());
        o.put("lastUpdatedAt", t.lastUpdatedAt().toString());
        if (t.ttlMs() != null) {
            o.put("ttlMs", t.ttlMs());
        }
        o.put("pollIntervalMs", t.pollIntervalMs());
        if (t.result() != null) {
            o.set("result", t.result());
        }
        if (t.error() != null) {
            ObjectNode error = o.putObject("error");
            error.put("code", t.error().code());
            error.put("message", t.error().message());
            if (t.error().data() != null) {
                error.set("data", t.error().data());
            }
        }
        if (t.inputRequests() != null) {
            o.set("inputRequests", t.inputRequests());
        }
        return Json.mapper().writeValueAsBytes(o);
    }

    static TaskRecord decode(byte[] json) {
        JsonNode o = Json.mapper().readTree(json);
        JsonNode e = o.get("error");
        JsonRpcError error = e == null ? null
                : new JsonRpcError(e.path("code").asInt(), e.path("message").asString(), e.get("data"));
        return new TaskRecord(o.path("taskId").asString(), o.path("owner").asString(),
                TaskStatus.valueOf(o.path("status").asString()),
                o.has("statusMessage") ? o.get("statusMessage").asString() : null,
                Instant.parse(o.path("createdAt").asString()), Instant.parse(o.path("lastUpdatedAt").asString()),
                o.has("ttlMs") ? o.get("ttlMs").asLong() : null, o.path("pollIntervalMs").asLong(),
                o.get("result") instanceof ObjectNode r ? r : null, error,
                o.get("inputRequests") instanceof ObjectNode i ? i : null);
    }

    private static byte[] ascii(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }
}
