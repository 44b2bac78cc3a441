package dev.tern.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.server.McpServer;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Implementation;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;

class TernMcpApplicationTest {

    private static ConfigurableApplicationContext start(String... args) {
        SpringApplication application = new SpringApplication(GreetingApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        return application.run(args);
    }

    @Test
    void theOfficialJavaSdkClientListsAndCallsTheApplicationsToolBean() {
        try (ConfigurableApplicationContext context =
                start("--tern.mcp.port=0", "--tern.mcp.path=/tools", "--spring.application.name=greeter")) {
            TernMcpLifecycle lifecycle = context.getBean(TernMcpLifecycle.class);
            assertThat(lifecycle.url()).startsWith("http://127.0.0.1:").endsWith("/tools");
            HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport.builder(
                    "http://127.0.0.1:" + lifecycle.port()).endpoint("/tools").build();
            McpSyncClient client = McpClient.sync(transport)
                    .clientInfo(Implementation.builder("spring-boot-starter-test", "1.0.0").build())
                    .requestTimeout(Duration.ofSeconds(30))
                    .build();
            try {
                assertThat(client.initialize().serverInfo().name()).isEqualTo("greeter");
                assertThat(client.listTools().tools()).extracting(tool -> tool.name()).containsExactly("greet");
                CallToolResult result = client.callTool(new CallToolRequest("greet", Map.of("name", "Ada")));
                assertThat(result.isError()).isNotEqualTo(Boolean.TRUE);
                assertThat(((TextContent) result.content().get(0)).text()).contains("Hello, Ada!");
            } finally {
                client.closeGracefully();
            }
        }
    }

    @Test
    void theListenerIsClosedWithTheApplicationContext() {
        int port;
        try (ConfigurableApplicationContext context = start("--tern.mcp.port=0")) {
            port = context.getBean(TernMcpLifecycle.class).port();
            assertThat(port).isPositive();
            assertThat(accepts(port)).isTrue();
        }
        assertThat(accepts(port)).isFalse();
    }

    @Test
    void theOffSwitchLeavesNoServerAndNoListener() {
        try (ConfigurableApplicationContext context = start("--tern.mcp.enabled=false")) {
            assertThat(context.getBeansOfType(McpServer.class)).isEmpty();
            assertThat(context.getBeansOfType(TernMcpLifecycle.class)).isEmpty();
        }
    }

    @Test
    void propertiesBindToTheirTypes() {
        try (ConfigurableApplicationContext context = start("--tern.mcp.port=0", "--tern.mcp.host=127.0.0.1",
                "--tern.mcp.allowed-hosts=mcp.example.com,api.example.com", "--tern.mcp.shutdown-timeout=3s",
                "--tern.mcp.max-connections=17", "--tern.mcp.name=named", "--tern.mcp.version=2.0.0")) {
            TernMcpProperties properties = context.getBean(TernMcpProperties.class);
            assertThat(properties.getAllowedHosts()).containsExactly("mcp.example.com", "api.example.com");
            assertThat(properties.getShutdownTimeout()).isEqualTo(Duration.ofSeconds(3));
            assertThat(properties.getMaxConnections()).isEqualTo(17);
            assertThat(context.getBean(McpServer.class).info().name()).isEqualTo("named");
            assertThat(context.getBean(McpServer.class).info().version()).isEqualTo("2.0.0");
        }
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException refused) {
            return false;
        }
    }
}
