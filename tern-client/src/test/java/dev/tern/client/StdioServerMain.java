package dev.tern.client;

import dev.tern.transport.stdio.StdioServerTransport;

/** The test directory server over stdin/stdout, for the stdio client tests to start as a child process. */
public final class StdioServerMain {
    private StdioServerMain() {
    }

    public static void main(String[] args) throws Exception {
        System.err.println("stdio test server starting");
        StdioServerTransport.builder(TestServers.directory()).build().serve();
    }
}
