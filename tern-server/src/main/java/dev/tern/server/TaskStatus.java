package dev.tern.server;

import java.util.Locale;

/** The life of a task: it starts working and ends completed, failed or cancelled. */
public enum TaskStatus {
    WORKING, INPUT_REQUIRED, COMPLETED, FAILED, CANCELLED;

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    public boolean terminal() {
        return this == COMPLETED || this == FAILED || this == CANCELLED;
    }
}
