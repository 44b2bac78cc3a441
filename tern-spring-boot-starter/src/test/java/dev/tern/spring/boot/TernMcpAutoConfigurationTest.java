package dev.tern.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.server.McpServer;
import dev.tern.server.Tool;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class TernMcpAutoConfigurationTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(TernMcpAutoConfiguration.class))
            .withPropertyValues("tern.mcp.port=0");

    static class Clock {
        @Tool(description = "The hour")
        public int hour() {
            return 12;
        }
    }

    @Test
    void annotatedBeansBecomeToolsOfTheAutoConfiguredServer() {
        runner.withBean(Clock.class).run(context -> {
            assertThat(context).hasSingleBean(McpServer.class).hasSingleBean(TernMcpLifecycle.class);
            assertThat(context.getBean(McpServer.class).tools()).extracting(tool -> tool.name()).containsExactly("hour");
        });
    }

    @Test
    void aBeanBehindAClassProxyIsCalledThroughItsAdvice() {
        java.util.concurrent.atomic.AtomicInteger advised = new java.util.concurrent.atomic.AtomicInteger();
        org.springframework.aop.framework.ProxyFactory proxies = new org.springframework.aop.framework.ProxyFactory(new Clock());
        proxies.setProxyTargetClass(true);
        proxies.addAdvice((org.aopalliance.intercept.MethodInterceptor) invocation -> {
            advised.incrementAndGet();
            return invocation.proceed();
        });
        Clock proxy = (Clock) proxies.getProxy();
        runner.withBean(Clock.class, () -> proxy).run(context -> {
            McpServer server = context.getBean(McpServer.class);
            assertThat(server.tools()).extracting(tool -> tool.name()).containsExactly("hour");
            var response = dev.tern.testing.TestClient.modern(server).callTool("hour", null);
            assertThat(response.result().path("content").get(0).path("text").asString()).isEqualTo("12");
            assertThat(advised).hasValue(1);
        });
    }

    @Test
    void anApplicationsOwnServerReplacesTheAutoConfiguredOne() {
        McpServer own = McpServer.builder().info("own", "9").build();
        runner.withBean(Clock.class).withBean(McpServer.class, () -> own).run(context -> {
            assertThat(context).getBean(McpServer.class).isSameAs(own);
            assertThat(own.tools()).isEmpty();
        });
    }

    @Test
    void theBuildGeneratesPropertyMetadataForIdes() throws Exception {
        try (var in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).isNotNull();
            String metadata = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertThat(metadata).contains("\"tern.mcp.port\"", "\"tern.mcp.enabled\"", "\"tern.mcp.allowed-hosts\"",
                    "Port of the MCP listener");
        }
    }

    @Test
    void theOffSwitchBacksOffEntirely() {
        runner.withPropertyValues("tern.mcp.enabled=false").withBean(Clock.class).run(context ->
                assertThat(context).doesNotHaveBean(McpServer.class).doesNotHaveBean(TernMcpLifecycle.class)
                        .doesNotHaveBean(TernMcpProperties.class));
    }

    @Test
    void aTransportCustomizerSeesThePropertiesAlreadyApplied() {
        runner.withBean(TernHttpTransportCustomizer.class, () -> builder -> builder.path("/custom")).run(context ->
                assertThat(context.getBean(TernMcpLifecycle.class).url()).endsWith("/custom"));
    }
}
