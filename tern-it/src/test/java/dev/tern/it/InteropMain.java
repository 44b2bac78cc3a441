package dev.tern.it;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

import dev.tern.server.McpServer;
import dev.tern.transport.stdio.StdioServerTransport;

/** Serves {@link InteropServer} over stdio until stdin ends; what official clients spawn in the interop tests. */
public final class InteropMain {
    private InteropMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        OutputStream stdout = new FileOutputStream(FileDescriptor.out);
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true));
        McpServer server = InteropServer.create();
        try {
            StdioServerTransport.builder(server).input(System.in).output(stdout).build().serve();
        } finally {
            server.close();
        }
    }

    /** The command line that starts this server from the test classpath. */
    public static List<String> command() {
        List<String> command = new ArrayList<>();
        command.add(TernProcess.javaExecutable());
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        command.add(TernProcess.classpath());
        command.add(InteropMain.class.getName());
        return command;
    }
}
