package dev.tern.server;

/**
 * A tool hint as {@link Tool} declares it: left out of the listing, or said to be true or false. The protocol gives
 * each hint a default when left out (destructive and open-world true, read-only and idempotent false), so saying
 * {@code FALSE} differs from saying nothing.
 */
public enum Hint {
    /** Not sent: clients assume the protocol's default. */
    UNSET,
    TRUE,
    FALSE
}
