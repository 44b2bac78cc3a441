package dev.tern.bench.peers.javasdk;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.server.transport.HttpServletStatelessServerTransport;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities;
import jakarta.servlet.http.HttpServlet;
import org.apache.catalina.Context;
import org.apache.catalina.Wrapper;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;

import dev.tern.bench.peers.UserDirectory;

/**
 * The official MCP Java SDK serving {@code get_user} and {@code echo} on embedded Tomcat at
 * {@code http://127.0.0.1:PORT/mcp}, in one of two modes:
 * <ul>
 * <li>{@code stateless}: {@code HttpServletStatelessServerTransport}, every POST answered on its own, no session;</li>
 * <li>{@code sessions}: {@code HttpServletStreamableServerTransportProvider}, {@code initialize} opens a session
 * ({@code Mcp-Session-Id}) and responses come as SSE streams.</li>
 * </ul>
 * Usage: {@code java -jar peer-java-sdk.jar stateless|sessions PORT}. Tomcat runs with its defaults (NIO connector,
 * 200 worker threads, no access log); the SDK logs nothing (SLF4J NOP).
 */
public final class JavaSdkPeer {
    private static final String ENDPOINT = "/mcp";

    private JavaSdkPeer() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2 || !(args[0].equals("stateless") || args[0].equals("sessions"))) {
            System.err.println("usage: java -jar peer-java-sdk.jar stateless|sessions PORT");
            System.exit(2);
        }
        String mode = args[0];
        int port = Integer.parseInt(args[1]);
        UserTools tools = new UserTools(UserDirectory.generate(1_000), McpJsonDefaults.getMapper());
        HttpServlet servlet = mode.equals("stateless") ? stateless(tools) : sessions(tools);

        Path baseDir = Files.createTempDirectory("peer-java-sdk-tomcat");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(baseDir)));
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(baseDir.toString());
        Connector connector = new Connector();
        connector.setPort(port);
        connector.setProperty("address", "127.0.0.1");
        connector.setThrowOnFailure(true);
        tomcat.setConnector(connector);
        Context context = tomcat.addContext("", null);
        Wrapper wrapper = Tomcat.addServlet(context, "mcp", servlet);
        wrapper.setAsyncSupported(true);
        wrapper.addMapping(ENDPOINT);
        tomcat.start();
        System.err.println("peer-java-sdk: serving " + mode + " at http://127.0.0.1:" + port + ENDPOINT);
        tomcat.getServer().await();
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind is harmless
        }
    }

    private static HttpServlet stateless(UserTools tools) {
        HttpServletStatelessServerTransport transport = HttpServletStatelessServerTransport.builder()
                .messageEndpoint(ENDPOINT)
                .build();
        McpServer.sync(transport)
                .serverInfo("peer-java-sdk", "0.1.0")
                .capabilities(ServerCapabilities.builder().tools(false).build())
                .tools(new McpStatelessServerFeatures.SyncToolSpecification(tools.getUserTool(),
                                (context, request) -> tools.getUser(request.arguments())),
                        new McpStatelessServerFeatures.SyncToolSpecification(tools.echoTool(),
                                (context, request) -> tools.echo(request.arguments())))
                .build();
        return transport;
    }

    private static HttpServlet sessions(UserTools tools) {
        HttpServletStreamableServerTransportProvider transport = HttpServletStreamableServerTransportProvider.builder()
                .mcpEndpoint(ENDPOINT)
                .build();
        McpServer.sync(transport)
                .serverInfo("peer-java-sdk", "0.1.0")
                .capabilities(ServerCapabilities.builder().tools(false).build())
                .tools(new McpServerFeatures.SyncToolSpecification(tools.getUserTool(),
                                (exchange, request) -> tools.getUser(request.arguments())),
                        new McpServerFeatures.SyncToolSpecification(tools.echoTool(),
                                (exchange, request) -> tools.echo(request.arguments())))
                .build();
        return transport;
    }
}
