package dev.tern.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import dev.tern.server.Arg;
import dev.tern.server.TaskSupport;
import dev.tern.server.Tool;

/**
 * Task tools of the many-node task tests, served by {@code tern serve --classpath}: each run of a task appends the
 * process id of the node running it to a file named after the task, so that a test counts where and how often every
 * task ran.
 */
public class QueuedWork {

    @Tool(description = "Records this run, works for a while and answers which node ran it", taskSupport = TaskSupport.REQUIRED)
    public String work(@Arg(description = "The task's name, and its file's") String id,
            @Arg(description = "How long to work, in milliseconds") long millis,
            @Arg(description = "The folder of the runs' files") String dir) throws IOException, InterruptedException {
        record(dir, id);
        Thread.sleep(millis);
        return id + " by " + ProcessHandle.current().pid();
    }

    @Tool(description = "Records this run and, after a moment, brings down the node running it", taskSupport = TaskSupport.REQUIRED)
    public String crash(@Arg(description = "The task's name, and its file's") String id,
            @Arg(description = "The folder of the runs' files") String dir) throws IOException, InterruptedException {
        record(dir, id);
        // Long enough for the request that created the task to be answered first.
        Thread.sleep(500);
        Runtime.getRuntime().halt(3);
        return "unreachable";
    }

    private static void record(String dir, String id) throws IOException {
        Files.writeString(Path.of(dir, id), ProcessHandle.current().pid() + "\n", StandardCharsets.US_ASCII,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
}
