package dev.tern.server;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a method as a prompt. String parameters become its arguments; the method returns a
 * {@link dev.tern.protocol.model.GetPromptResult}, a list of {@link dev.tern.protocol.model.PromptMessage} or a
 * {@link String} (one user message).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Prompt {
    String name() default "";

    String title() default "";

    String description() default "";

    /**
     * The method never blocks and returns within microseconds; see
     * {@link ToolSpec.Builder#nonBlocking(boolean)} for what that allows and forbids.
     */
    boolean nonBlocking() default false;

    /** Keeps results for a while; see {@link CachePolicy}. Not cached unless a ttl is given. */
    Cache cache() default @Cache;

    /** The OAuth scopes a caller's token must grant to get the prompt; see {@link ToolSpec.Builder#scopes}. */
    String[] scopes() default {};
}
