package dev.tern.server;

/** Whether a tool may run as a task: the {@code execution.taskSupport} that {@code tools/list} shows. */
public enum TaskSupport {
    /** Never a task: the default. */
    FORBIDDEN("forbidden"),
    /** A task when the client supports tasks, an ordinary call otherwise. */
    OPTIONAL("optional"),
    /** Only a task: a client without task support gets an error. */
    REQUIRED("required");

    private final String wire;

    TaskSupport(String wire) {
        this.wire = wire;
    }

    /** The value on the wire. */
    public String wire() {
        return wire;
    }
}
