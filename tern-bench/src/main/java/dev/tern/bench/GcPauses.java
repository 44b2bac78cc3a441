package dev.tern.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/**
 * The garbage collector's pauses within a time window, read from a JFR recording of the serving process
 * ({@code jdk.GarbageCollection} events, which JFR's default and profile settings record).
 *
 * @param collections the collections that started within the window
 * @param paused their pauses summed
 * @param longest the longest single pause
 * @param window the window's length
 */
public record GcPauses(int collections, Duration paused, Duration longest, Duration window) {

    /** The collections of {@code recording} that started in {@code [from, to)}. */
    public static GcPauses read(Path recording, Instant from, Instant to) throws IOException {
        if (!to.isAfter(from)) {
            throw new IllegalArgumentException("empty window: " + from + " to " + to);
        }
        int collections = 0;
        Duration paused = Duration.ZERO;
        Duration longest = Duration.ZERO;
        try (RecordingFile file = new RecordingFile(recording)) {
            while (file.hasMoreEvents()) {
                RecordedEvent event = file.readEvent();
                if (!event.getEventType().getName().equals("jdk.GarbageCollection")
                        || event.getStartTime().isBefore(from) || !event.getStartTime().isBefore(to)) {
                    continue;
                }
                collections++;
                paused = paused.plus(event.getDuration("sumOfPauses"));
                Duration pause = event.getDuration("longestPause");
                if (pause.compareTo(longest) > 0) {
                    longest = pause;
                }
            }
        }
        return new GcPauses(collections, paused, longest, Duration.between(from, to));
    }

    /** The share of the window the process spent paused for collections, 0 to 1. */
    public double share() {
        return (double) paused.toNanos() / window.toNanos();
    }

    /** One line: the share, the count, the longest pause. */
    public String describe() {
        return String.format(java.util.Locale.ROOT, "GC pauses %.2f %% of %.1f s (%d collections, longest %.2f ms)",
                share() * 100, window.toMillis() / 1000.0, collections, longest.toNanos() / 1e6);
    }
}
