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
import dev.tern.server.TaskQueue;
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

/**
 * Tasks that outlive the node that accepted them: each accepted task is an entry of one Redis Stream read by one
 * consumer group, acknowledged only once its final result is stored. Every node periodically claims entries idle
 * longer than {@code idle} (their node died or stopped renewing them) and runs them again; a lease key per task keeps
 * two nodes from running one task at once, a task already final is acknowledged without running, and an entry
 * delivered more than {@code maxDeliveries} times moves to a dead-letter stream and its task fails. A node that
 * closes hands its unfinished entries back marked idle, so the next claim of another node takes them. No command
 * blocks, so the queue shares the node's connection. Thread-safe.
 */
public final class RedisTaskQueue implements TaskQueue {
    /** {@link #DEFAULT_IDLE} in seconds, for option defaults. */
    public static final int DEFAULT_IDLE_SECONDS = 30;
    /** How long an entry may go unrenewed before another node runs its task again. */
    public static final Duration DEFAULT_IDLE = Duration.ofSeconds(DEFAULT_IDLE_SECONDS);
    /** How many times a task is started before it is given up as failing. */
    public static final int DEFAULT_MAX_DELIVERIES = 5;
    /** The longest wait between two looks for idle entries, so that a handed-back task is taken up soon. */
    static final Duration MAX_CLAIM_PERIOD = Duration.ofSeconds(1);
    /** How long closing waits for the interrupted tasks to stop before handing their entries back. */
    private static final Duration STOP_WAIT = Duration.ofSeconds(2);

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

    /**
     * Hands entries back: claims them for this node again marked idle since {@code idle} ago (not counted as a
     * delivery), so that another node's next claim takes them, and drops those of their leases that are still this
     * node's.
     */
    private static final Script HAND_BACK = new Script("""
            local n = #KEYS - 1
            local ids = {}
            for i = 1, n do ids[i] = ARGV[3 + i] end
            ids[n + 1] = 'IDLE'
            ids[n + 2] = ARGV[3]
            ids[n + 3] = 'JUSTID'
            redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, unpack(ids))
            for i = 1, n do
              if redis.call('GET', KEYS[1 + i]) == ARGV[2] then redis.call('DEL', KEYS[1 + i]) end
            end
            return n
            """, ScriptOutputType.INTEGER);

    /** Drops a lease if it is still this node's. */
    private static final Script RELEASE = new Script("""
            if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
            return 0
            """, ScriptOutputType.INTEGER);

    static byte[] encode(Call call) {
        return Json.mapper().writeValueAsBytes(call.toJson());
    }

    static Call decode(byte[] json) {
        return Call.fromJson(Json.mapper().readTree(json));
    }

    private final Redis redis;
    private final RedisTaskStore store;
    private volatile Runner runner;
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

    public RedisTaskQueue(Redis redis) {
        this(redis, DEFAULT_IDLE, DEFAULT_MAX_DELIVERIES);
    }

    /**
     * @param idle how long a task's entry may go unrenewed (its node died) before another node runs it again
     * @param maxDeliveries how many times a task is started before it moves to the dead-letter stream and fails
     */
    public RedisTaskQueue(Redis redis, Duration idle, int maxDeliveries) {
        if (idle.toMillis() < 3 || maxDeliveries < 1) {
            throw new IllegalArgumentException("idle must be at least 3 ms and maxDeliveries at least 1");
        }
        this.redis = Objects.requireNonNull(redis, "redis");
        this.store = new RedisTaskStore(redis);
        this.idle = idle;
        this.maxDeliveries = maxDeliveries;
        byte[] random = new byte[8];
        new SecureRandom().nextBytes(random);
        this.consumer = HexFormat.of().formatHex(random);
        this.consumerBytes = consumer.getBytes(StandardCharsets.US_ASCII);
        this.timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("tern-task-queue").factory());
    }

    /** Starts running tasks with {@code runner}: this node's as they are submitted, and other nodes' left idle. */
    @Override
    public synchronized void start(Runner runner) {
        if (this.runner != null) {
            throw new IllegalStateException("The task queue is already started");
        }
        this.runner = Objects.requireNonNull(runner, "runner");
        // Renewing at least three times per idle period keeps a live node's entries from ever looking idle.
        long period = Math.max(1, Math.min(idle.toMillis() / 3, MAX_CLAIM_PERIOD.toMillis()));
        timer.scheduleWithFixedDelay(this::tick, period, period, TimeUnit.MILLISECONDS);
    }

    /**
     * Queues a task whose record is already stored and runs it on this node. Costs two round trips (the entry, the
     * lease); its end costs one more.
     *
     * @throws StoreUnavailableException when Redis cannot take the entry, or this queue is closed
     */
    @Override
    public void submit(String taskId, Call call) {
        if (runner == null) {
            throw new IllegalStateException("The task queue is not started");
        }
        if (closed) {
            throw new StoreUnavailableException("This node is shutting down");
        }
        byte[] id = redis.call(Keys.TASK_QUEUE, c -> SUBMIT.run(c, new String[] {Keys.TASK_QUEUE}, bytes(taskId),
                encode(call), bytes(GROUP), consumerBytes));
        String entryId = new String(id, StandardCharsets.US_ASCII);
        if (lease(taskId)) {
            start(entryId, taskId, call);
        }
    }

    @Override
    public boolean isClosed() {
        return closed;
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
            redis.call(Keys.TASK_QUEUE, c -> ENSURE.run(c, new String[] {Keys.TASK_QUEUE}, bytes(GROUP)));
            renew();
            claim();
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "The task queue could not be read: {0}", e.getMessage());
        }
    }

    /** Keeps this node's entries from looking idle and its leases from expiring while their tasks run. */
    private void renew() {
        runInBatches(RENEW, List.copyOf(running.entrySet()));
    }

    private void claim() {
        String cursor = "0-0";
        do {
            String from = cursor;
            ClaimedMessages<String, byte[]> claimed = redis.call(Keys.TASK_QUEUE, c -> c.xautoclaim(Keys.TASK_QUEUE,
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
            redis.call(Keys.TASK_QUEUE, c -> DONE.run(c, new String[] {Keys.TASK_QUEUE, Keys.taskLease("")},
                    bytes(GROUP), bytes(m.getId()), consumerBytes));
            return;
        }
        String taskId = new String(task, StandardCharsets.UTF_8);
        List<PendingMessage> pending = redis.call(Keys.TASK_QUEUE, c -> c.xpending(Keys.TASK_QUEUE, GROUP,
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
            start(m.getId(), taskId, decode(callBytes));
        }
    }

    private void bury(String entryId, String taskId, byte[] call, long started, TaskRecord record) {
        String message = "Task " + taskId + " was started " + started + " times without finishing";
        LOG.log(Level.WARNING, message + "; moved to " + Keys.DEAD_TASKS);
        TaskRecord failed = record.completed(TaskStatus.FAILED, null, JsonRpcError.of(ErrorCodes.INTERNAL_ERROR, message),
                Instant.now());
        store.save(failed);
        redis.call(Keys.TASK_QUEUE, c -> BURY.run(c, new String[] {Keys.TASK_QUEUE, Keys.DEAD_TASKS}, bytes(GROUP),
                bytes(entryId), bytes(taskId), call, bytes(Long.toString(started))));
    }

    private boolean lease(String taskId) {
        String lease = Keys.taskLease(taskId);
        return "OK".equals(redis.call(lease, c -> c.set(lease, consumerBytes,
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
                // A closing queue hands back what did not finish, all at once.
                if (finished || !closed) {
                    try {
                        if (finished) {
                            done(entryId, taskId);
                        } else {
                            String lease = Keys.taskLease(taskId);
                            redis.call(lease, c -> RELEASE.run(c, new String[] {lease}, consumerBytes));
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
        redis.call(Keys.TASK_QUEUE, c -> DONE.run(c, new String[] {Keys.TASK_QUEUE, Keys.taskLease(taskId)},
                bytes(GROUP), bytes(entryId), consumerBytes));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Stops claiming and interrupts the tasks running here; waits a moment for them to stop, then hands back the
     * entries of those that did not finish, marked idle and their leases dropped, so that the next claim of another
     * node runs them (within a second) rather than after {@code idle}. Costs one round trip per 500 tasks handed back.
     */
    @Override
    public void close() {
        List<Map.Entry<String, Running>> stopping;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            timer.shutdownNow();
            stopping = List.copyOf(running.entrySet());
        }
        stopping.forEach(r -> r.getValue().thread().interrupt());
        long deadline = System.nanoTime() + STOP_WAIT.toNanos();
        for (Map.Entry<String, Running> r : stopping) {
            try {
                r.getValue().thread().join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        try {
            handBack(stopping);
        } catch (StoreUnavailableException e) {
            LOG.log(Level.DEBUG, "Tasks not handed back, other nodes run them after {0}: {1}", idle, e.getMessage());
        }
    }

    private void handBack(List<Map.Entry<String, Running>> entries) {
        runInBatches(HAND_BACK, entries);
    }

    /** Runs {@code script} over the entries and leases of {@code entries}, {@value #RENEW_BATCH} at a time. */
    private void runInBatches(Script script, List<Map.Entry<String, Running>> entries) {
        for (int from = 0; from < entries.size(); from += RENEW_BATCH) {
            List<Map.Entry<String, Running>> batch = entries.subList(from, Math.min(entries.size(), from + RENEW_BATCH));
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
            redis.call(Keys.TASK_QUEUE, c -> script.run(c, keys, args));
        }
    }
}
