package dev.tern.redis;

import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import dev.tern.protocol.ErrorCodes;
import dev.tern.protocol.Json;
import dev.tern.protocol.JsonRpcError;
import dev.tern.server.StoreUnavailableException;
import dev.tern.server.TaskRecord;
import dev.tern.server.TaskStatus;

import io.lettuce.core.models.stream.ClaimedMessages;
import io.lettuce.core.Consumer;
import io.lettuce.core.Limit;
import io.lettuce.core.models.stream.PendingMessage;
import io.lettuce.core.Range;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XAutoClaimArgs;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Tasks that outlive the node that accepted them: each accepted task is an entry of one Redis Stream read by one
 * consumer group, acknowledged only once its final result is stored. Every node periodically claims entries idle
 * longer than {@code idle} (their node died or stopped renewing them) and runs them again; a lease key per task keeps
 * two nodes from running one task at once, a task already final is acknowledged without running, and an entry
 * delivered more than {@code maxDeliveries} times moves to a dead-letter stream and its task fails. No command blocks,
 * so the queue shares the node's connection. Thread-safe.
 */
public final class RedisTaskQueue implements AutoCloseable {
    /** How long an entry may go unrenewed before another node runs its task again. */
    public static final Duration DEFAULT_IDLE = Duration.ofSeconds(30);
    /** How many times a task is started before it is given up as failing. */
    public static final int DEFAULT_MAX_DELIVERIES = 5;

    static final String GROUP = "tern-workers";
    private static final System.Logger LOG = System.getLogger("dev.tern.redis");
    private static final int CLAIM_BATCH = 100;
    private static final int RENEW_BATCH = 500;

    /** Adds the entry and delivers it at once to the accepting node, so no other node's read can take it first. */
    private static final Script SUBMIT = new Script("""
            pcall(redis.call, 'XGROUP', 'CREATE', KEYS[1], ARGV[3], '0', 'MKSTREAM')
            local id = redis.call('XADD', KEYS[1], '*', 'task', ARGV[1], 'call', ARGV[2])
            redis.call('XREADGROUP', 'GROUP', ARGV[3], ARGV[4], 'COUNT', 1, 'STREAMS', KEYS[1], '>')
            return id
            """, ScriptOutputType.VALUE);

    /** Creates the stream and its group unless they exist, so that claiming never fails for want of them. */
    private static final Script ENSURE = new Script("""
            pcall(redis.call, 'XGROUP', 'CREATE', KEYS[1], ARGV[1], '0', 'MKSTREAM')
            return 1
            """, ScriptOutputType.INTEGER);

    /** Moves an entry to the dead-letter stream: copied there, acknowledged and deleted from the queue. */
    private static final Script BURY = new Script("""
            redis.call('XADD', KEYS[2], '*', 'task', ARGV[3], 'call', ARGV[4], 'deliveries', ARGV[5], 'entry', ARGV[2])
            redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
            redis.call('XDEL', KEYS[1], ARGV[2])
            return 1
            """, ScriptOutputType.INTEGER);

    /** Acknowledges and deletes a finished entry and drops the lease if it is still this node's. */
    private static final Script DONE = new Script("""
            redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
            redis.call('XDEL', KEYS[1], ARGV[2])
            if redis.call('GET', KEYS[2]) == ARGV[3] then redis.call('DEL', KEYS[2]) end
            return 1
            """, ScriptOutputType.INTEGER);

    /**
     * Claims this node's entries for itself again (resetting their idle time without counting a delivery) and extends
     * those of their leases that are still this node's: one round trip for all the tasks running here.
     */
    private static final Script RENEW = new Script("""
            local n = #KEYS - 1
            local ids = {}
            for i = 1, n do ids[i] = ARGV[3 + i] end
            ids[n + 1] = 'JUSTID'
            redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, unpack(ids))
            for i = 1, n do
              if redis.call('GET', KEYS[1 + i]) == ARGV[2] then redis.call('PEXPIRE', KEYS[1 + i], ARGV[3]) end
            end
            return n
            """, ScriptOutputType.INTEGER);

    /** Drops a lease if it is still this node's. */
    private static final Script RELEASE = new Script("""
            if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
            return 0
            """, ScriptOutputType.INTEGER);

    /** What it takes to run a task again on any node. */
    public record Call(String tool, ObjectNode arguments, String protocolVersion, String owner) {
        public Call {
            Objects.requireNonNull(tool, "tool");
            Objects.requireNonNull(arguments, "arguments");
            Objects.requireNonNull(protocolVersion, "protocolVersion");
            Objects.requireNonNull(owner, "owner");
        }

        byte[] encode() {
            ObjectNode o = Json.object();
            o.put("tool", tool);
            o.set("arguments", arguments);
            o.put("protocolVersion", protocolVersion);
            o.put("owner", owner);
            return Json.mapper().writeValueAsBytes(o);
        }

        static Call decode(byte[] json) {
            JsonNode o = Json.mapper().readTree(json);
            return new Call(o.path("tool").asString(), (ObjectNode) o.get("arguments"),
                    o.path("protocolVersion").asString(), o.path("owner").asString());
        }
    }

    /** Runs a task and returns once its final result is stored; a throw leaves the task to be delivered again. */
    @FunctionalInterface
    public interface Runner {
        void run(String taskId, Call call) throws Exception;
    }

    private final Redis redis;
    private final RedisTaskStore store;
    private final Runner runner;
    private final Duration idle;
    private final int maxDeliveries;
    private final String consumer;
    private final byte[] consumerBytes;
    private final ScheduledExecutorService timer;
    /** The tasks this node runs, by their entry id. */
    private final Map<String, Running> running = new ConcurrentHashMap<>();
    private volatile boolean closed;

    private record Running(String taskId, Thread thread) {
    }

    public RedisTaskQueue(Redis redis, Runner runner) {
        this(redis, runner, DEFAULT_IDLE, DEFAULT_MAX_DELIVERIES);
    }

    public RedisTaskQueue(Redis redis, Runner runner, Duration idle, int maxDeliveries) {
        if (idle.toMillis() < 3 || maxDeliveries < 1) {
            throw new IllegalArgumentException("idle must be at least 3 ms and maxDeliveries at least 1");
        }
        this.redis = Objects.requireNonNull(redis, "redis");
        this.store = new RedisTaskStore(redis);
        this.runner = Objects.requireNonNull(runner, "runner");
        this.idle = idle;
        this.maxDeliveries = maxDeliveries;
        byte[] random = new byte[8];
        new SecureRandom().nextBytes(random);
        this.consumer = HexFormat.of().formatHex(random);
        this.consumerBytes = consumer.getBytes(StandardCharsets.US_ASCII);
        this.timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("tern-task-queue").factory());
        // Renewing and claiming three times per idle period keeps a live node's entries from ever looking idle.
        long period = Math.max(1, idle.toMillis() / 3);
        timer.scheduleWithFixedDelay(this::tick, period, period, TimeUnit.MILLISECONDS);
    }

    /**
     * Queues a task whose record is already stored and runs it on this node. Costs two round trips (the entry, the
     * lease); its end costs one more.
     *
     * @throws StoreUnavailableException when Redis cannot take the entry
     */
    public void submit(String taskId, Call call) {
        byte[] id = redis.call(c -> SUBMIT.run(c, new String[] {Keys.TASK_QUEUE}, bytes(taskId), call.encode(),
                bytes(GROUP), consumerBytes));
        String entryId = new String(id, StandardCharsets.US_ASCII);
        if (lease(taskId)) {
            start(entryId, taskId, call);
        }
    }

    /** How many tasks this node is running from the queue. */
    public int running() {
        return running.size();
    }

    private void tick() {
        if (closed) {
            return;
        }
        try {
            redis.call(c -> ENSURE.run(c, new String[] {Keys.TASK_QUEUE}, bytes(GROUP)));
            renew();
            claim();
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "The task queue could not be read: {0}", e.getMessage());
        }
    }

    /** Keeps this node's entries from looking idle and its leases from expiring while their tasks run. */
    private void renew() {
        List<Map.Entry<String, Running>> all = List.copyOf(running.entrySet());
        for (int from = 0; from < all.size(); from += RENEW_BATCH) {
            List<Map.Entry<String, Running>> batch = all.subList(from, Math.min(all.size(), from + RENEW_BATCH));
            String[] keys = new String[batch.size() + 1];
            byte[][] args = new byte[batch.size() + 3][];
            keys[0] = Keys.TASK_QUEUE;
            args[0] = bytes(GROUP);
            args[1] = consumerBytes;
            args[2] = bytes(Long.toString(idle.toMillis()));
            for (int i = 0; i < batch.size(); i++) {
                keys[i + 1] = Keys.taskLease(batch.get(i).getValue().taskId());
                args[i + 3] = bytes(batch.get(i).getKey());
            }
            redis.call(c -> RENEW.run(c, keys, args));
        }
    }

    private void claim() {
        String cursor = "0-0";
        do {
            String from = cursor;
            ClaimedMessages<String, byte[]> claimed = redis.call(c -> c.xautoclaim(Keys.TASK_QUEUE,
                    XAutoClaimArgs.Builder.xautoclaim(Consumer.from(GROUP, consumer), idle, from).count(CLAIM_BATCH)));
            if (claimed == null) {
                return;
            }
            for (StreamMessage<String, byte[]> m : claimed.getMessages()) {
                if (closed) {
                    return;
                }
                if (!running.containsKey(m.getId())) {
                    claimed(m);
                }
            }
            cursor = claimed.getId();
        } while (!"0-0".equals(cursor) && !closed);
    }

    private void claimed(StreamMessage<String, byte[]> m) {
        byte[] task = m.getBody().get("task");
        byte[] callBytes = m.getBody().get("call");
        if (task == null || callBytes == null) {
            redis.call(c -> DONE.run(c, new String[] {Keys.TASK_QUEUE, Keys.taskLease("")}, bytes(GROUP),
                    bytes(m.getId()), consumerBytes));
            return;
        }
        String taskId = new String(task, StandardCharsets.UTF_8);
        List<PendingMessage> pending = redis.call(c -> c.xpending(Keys.TASK_QUEUE, GROUP,
                Range.create(m.getId(), m.getId()), Limit.from(1)));
        long deliveries = pending.isEmpty() ? 1 : pending.getFirst().getRedeliveryCount();
        Optional<TaskRecord> record = store.find(taskId);
        if (record.isEmpty() || record.get().status().terminal()) {
            done(m.getId(), taskId);
            return;
        }
        if (deliveries > maxDeliveries) {
            bury(m.getId(), taskId, callBytes, deliveries - 1, record.get());
            return;
        }
        if (lease(taskId)) {
            start(m.getId(), taskId, Call.decode(callBytes));
        }
    }

    private void bury(String entryId, String taskId, byte[] call, long started, TaskRecord record) {
        String message = "Task " + taskId + " was started " + started + " times without finishing";
        LOG.log(Level.WARNING, message + "; moved to " + Keys.DEAD_TASKS);
        TaskRecord failed = record.completed(TaskStatus.FAILED, null, JsonRpcError.of(ErrorCodes.INTERNAL_ERROR, message),
                Instant.now());
        store.save(failed);
        redis.call(c -> BURY.run(c, new String[] {Keys.TASK_QUEUE, Keys.DEAD_TASKS}, bytes(GROUP), bytes(entryId),
                bytes(taskId), call, bytes(Long.toString(started))));
    }

    private boolean lease(String taskId) {
        return "OK".equals(redis.call(c -> c.set(Keys.taskLease(taskId), consumerBytes,
                SetArgs.Builder.nx().px(idle.toMillis()))));
    }

    private void start(String entryId, String taskId, Call call) {
        Thread thread = Thread.ofVirtual().name("tern-queued-task").unstarted(() -> {
            boolean finished = false;
            try {
                runner.run(taskId, call);
                finished = true;
            } catch (Throwable t) {
                if (!closed) {
                    LOG.log(Level.WARNING, "Task " + taskId + " ended without a result; it will run again", t);
                }
            } finally {
                running.remove(entryId);
                if (!closed) {
                    try {
                        if (finished) {
                            done(entryId, taskId);
                        } else {
                            redis.call(c -> RELEASE.run(c, new String[] {Keys.taskLease(taskId)}, consumerBytes));
                        }
                    } catch (StoreUnavailableException e) {
                        LOG.log(Level.DEBUG, "Task {0} stays queued: {1}", taskId, e.getMessage());
                    }
                }
            }
        });
        running.put(entryId, new Running(taskId, thread));
        thread.start();
    }

    private void done(String entryId, String taskId) {
        redis.call(c -> DONE.run(c, new String[] {Keys.TASK_QUEUE, Keys.taskLease(taskId)}, bytes(GROUP),
                bytes(entryId), consumerBytes));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Stops claiming and interrupts the tasks running here without acknowledging them, so other nodes run them again
     * once they look idle.
     */
    @Override
    public void close() {
        closed = true;
        timer.shutdownNow();
        running.values().forEach(r -> r.thread().interrupt());
    }
}
