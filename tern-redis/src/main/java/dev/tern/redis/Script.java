package dev.tern.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;

/** A Lua script run by its digest, sent whole only when the server does not know it yet (first use, a restart). */
final class Script {
    private final String text;
    private final ScriptOutputType output;
    private volatile String digest;

    Script(String text, ScriptOutputType output) {
        this.text = text;
        this.output = output;
    }

    <T> T run(RedisClusterCommands<String, byte[]> redis, String[] keys, byte[]... args) {
        String d = digest;
        if (d != null) {
            try {
                return redis.evalsha(d, output, keys, args);
            } catch (RedisNoScriptException unknown) {
                // Redis restarted or flushed its scripts: send the text again
            }
        }
        T result = redis.eval(text, output, keys, args);
        digest = redis.digest(text);
        return result;
    }

    /** {@link #run} without waiting: completes on Lettuce's I/O thread. */
    <T> CompletionStage<T> runAsync(RedisClusterAsyncCommands<String, byte[]> redis, String[] keys, byte[]... args) {
        String d = digest;
        if (d == null) {
            return evalAsync(redis, keys, args);
        }
        CompletionStage<T> bySha = redis.evalsha(d, output, keys, args);
        return bySha.exceptionallyCompose(failure -> {
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            // Redis restarted or flushed its scripts: send the text again
            return cause instanceof RedisNoScriptException ? evalAsync(redis, keys, args)
                    : CompletableFuture.failedStage(failure);
        });
    }

    private <T> CompletionStage<T> evalAsync(RedisClusterAsyncCommands<String, byte[]> redis, String[] keys,
            byte[]... args) {
        CompletionStage<T> sent = redis.eval(text, output, keys, args);
        return sent.thenApply(result -> {
            digest = redis.digest(text);
            return result;
        });
    }
}
