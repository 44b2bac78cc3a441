package dev.tern.server;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes the results of a tool, resource or prompt cacheable, as an attribute of {@link Tool#cache()},
 * {@link Resource#cache()} or {@link Prompt#cache()}: see {@link CachePolicy}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({})
public @interface Cache {
    /** How long a result stays fresh, as {@code 30s}, {@code 5m}, {@code 1h}, {@code 250ms} or ISO-8601; empty: not cached. */
    String ttl() default "";

    /** Whether a result is the same for every caller; private unless said. */
    CacheScope scope() default CacheScope.PRIVATE;
}
