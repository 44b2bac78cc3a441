package dev.tern.bench;

/** A bench that could not run to its end; the message names the target and what went wrong. */
public final class BenchFailure extends Exception {
    private static final long serialVersionUID = 1L;

    BenchFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
