package dev.tern.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The command line that runs {@code tern} with {@code args} in a JVM of its own, on the tests' class path. */
final class TernCommand {
    private TernCommand() {
    }

    static List<String> of(String... args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "dev.tern.cli.Main"));
        command.addAll(List.of(args));
        return command;
    }
}
