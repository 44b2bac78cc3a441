package dev.tern.server;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a method as a resource, or as a resource template when {@link #uri()} holds {@code {variables}}.
 * Parameters named like the template's variables receive their values; a {@link RequestContext} parameter is
 * injected. The method returns a {@link dev.tern.protocol.model.ReadResourceResult}, a
 * {@link dev.tern.protocol.model.ResourceContents}, a {@link String} (text with {@link #mimeType()}), a
 * {@code byte[]} (a blob) or any value (written as JSON).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Resource {
    String uri();

    String name() default "";

    String title() default "";

    String description() default "";

    String mimeType() default "";

    /**
     * The method never blocks and returns within microseconds; see
     * {@link ToolSpec.Builder#nonBlocking(boolean)} for what that allows and forbids.
     */
    boolean nonBlocking() default false;

    /** Keeps results for a while; see {@link CachePolicy}. Not cached unless a ttl is given. */
    Cache cache() default @Cache;

    /** The OAuth scopes a caller's token must grant to read the resource; see {@link ToolSpec.Builder#scopes}. */
    String[] scopes() default {};
}
