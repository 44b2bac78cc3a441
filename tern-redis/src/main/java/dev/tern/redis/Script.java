package dev.tern.redis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
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
}
