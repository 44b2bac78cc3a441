package dev.tern.server;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a method as the completer of one argument of a prompt ({@link #prompt()}) or one variable of a
 * resource template ({@link #resource()}, the template string). The method takes the typed value (a
 * {@link String}) and optionally a {@code Map<String, String>} of the other arguments, and returns a
 * {@code List<String>}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Complete {
    String prompt() default "";

    String resource() default "";

    String argument();
}
