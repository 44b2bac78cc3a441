package dev.tern.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** A local JVM's diagnostic commands, through the {@code jcmd} of the JDK this bench runs on. */
final class Jcmd {
    private Jcmd() {
    }

    /** The output of {@code jcmd PID COMMAND} (its error text when it fails); empty when it takes over a minute. */
    static String run(long pid, String command) throws IOException, InterruptedException {
        Path tool = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Path out = Files.createTempFile("tern-jcmd", ".txt");
        try {
            Process p = new ProcessBuilder(tool.toString(), Long.toString(pid), command).redirectErrorStream(true)
                    .redirectOutput(out.toFile()).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                return "";
            }
            return Files.readString(out, StandardCharsets.UTF_8);
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /** The bytes a {@code GC.class_histogram} counted (its {@code Total} line), -1 when it has none. */
    static long histogramTotal(String histogram) {
        return histogram.lines().filter(l -> l.startsWith("Total")).findFirst()
                .map(l -> Long.parseLong(l.trim().split("\\s+")[2])).orElse(-1L);
    }
}
