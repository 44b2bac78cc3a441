package dev.tern.server;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Describes a tool or prompt parameter, or a component of a record used as arguments. */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.PARAMETER, ElementType.RECORD_COMPONENT, ElementType.FIELD})
public @interface Arg {
    /** The JSON name; the Java name when empty (compile with {@code -parameters}). */
    String name() default "";

    String description() default "";

    boolean required() default true;

    /** A JSON value (or a bare string) used when the argument is absent; implies not required. */
    String defaultValue() default "";
}
