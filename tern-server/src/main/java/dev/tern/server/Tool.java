package dev.tern.server;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a method as an MCP tool. Its parameters become the input schema's properties (a
 * {@link RequestContext} parameter is injected instead); its return value becomes the result as described in
 * {@link TypedToolHandler}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Tool {
    /** The tool's name; the method's name when empty. */
    String name() default "";

    String title() default "";

    String description() default "";

    /** The tool does not modify its environment; the protocol's default is false. */
    Hint readOnly() default Hint.UNSET;

    /** The tool may destroy or overwrite, rather than only add; the protocol's default is true. */
    Hint destructive() default Hint.UNSET;

    /** Calling again with the same arguments has no further effect; the protocol's default is false. */
    Hint idempotent() default Hint.UNSET;

    /** The tool reaches an open world of external entities (the web, say); the protocol's default is true. */
    Hint openWorld() default Hint.UNSET;

    /**
     * The method never blocks and returns within microseconds; see {@link ToolSpec.Builder#nonBlocking(boolean)}
     * for what that allows and forbids.
     */
    boolean nonBlocking() default false;

    /** The OAuth scopes a caller's token must grant to call the tool; see {@link ToolSpec.Builder#scopes}. */
    String[] scopes() default {};

    /** Whether the tool may run as a task; see {@link ToolSpec.Builder#taskSupport(TaskSupport)}. */
    TaskSupport taskSupport() default TaskSupport.FORBIDDEN;

    /** Keeps results for a while; see {@link CachePolicy}. Not cached unless a ttl is given. */
    Cache cache() default @Cache;
}
