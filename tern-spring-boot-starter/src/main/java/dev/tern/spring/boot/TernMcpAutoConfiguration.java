package dev.tern.spring.boot;

import dev.tern.server.McpServer;
import dev.tern.server.Prompt;
import dev.tern.server.PromptSpec;
import dev.tern.server.Resource;
import dev.tern.server.ResourceSpec;
import dev.tern.server.ResourceTemplateSpec;
import dev.tern.server.Tool;
import dev.tern.server.ToolSpec;
import dev.tern.transport.http.HttpServerTransport;
import java.lang.reflect.Method;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Serves the application's MCP features through Tern: every bean with {@link Tool}, {@link Resource} or {@link Prompt}
 * methods and every {@link ToolSpec}, {@link ResourceSpec}, {@link ResourceTemplateSpec} and {@link PromptSpec} bean
 * goes into one {@link McpServer}, served by Tern's Netty transport on {@code tern.mcp.port}, apart from any servlet
 * container. Tern keeps its own JSON mapper rather than the application's, so that the application's Jackson
 * customisations never change the protocol's wire format.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "tern.mcp.enabled", matchIfMissing = true)
@EnableConfigurationProperties(TernMcpProperties.class)
public class TernMcpAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    McpServer ternMcpServer(ConfigurableListableBeanFactory beans, TernMcpProperties properties, Environment environment,
            ObjectProvider<ToolSpec> tools, ObjectProvider<ResourceSpec> resources,
            ObjectProvider<ResourceTemplateSpec> templates, ObjectProvider<PromptSpec> prompts,
            ObjectProvider<TernMcpServerCustomizer> customizers) {
        String name = properties.getName() != null ? properties.getName()
                : environment.getProperty("spring.application.name", "application");
        McpServer.Builder builder = McpServer.builder().info(name, properties.getVersion())
                .instructions(properties.getInstructions());
        if (properties.getHandlerTimeout() != null) {
            builder.handlerTimeout(properties.getHandlerTimeout());
        }
        for (String beanName : beans.getBeanNamesForType(Object.class, false, false)) {
            Class<?> type = beans.getType(beanName, false);
            if (type != null && hasFeatureMethods(ClassUtils.getUserClass(type))) {
                builder.register(beans.getBean(beanName));
            }
        }
        tools.orderedStream().forEach(builder::tool);
        resources.orderedStream().forEach(builder::resource);
        templates.orderedStream().forEach(builder::resourceTemplate);
        prompts.orderedStream().forEach(builder::prompt);
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        return builder.build();
    }

    @Bean
    @ConditionalOnMissingBean
    TernMcpLifecycle ternMcpLifecycle(McpServer server, TernMcpProperties properties,
            ObjectProvider<TernHttpTransportCustomizer> customizers) {
        HttpServerTransport.Builder builder = HttpServerTransport.builder(server)
                .host(properties.getHost())
                .port(properties.getPort())
                .path(properties.getPath())
                .shutdownTimeout(properties.getShutdownTimeout());
        properties.getAllowedHosts().forEach(builder::allowHost);
        properties.getAllowedOrigins().forEach(builder::allowOrigin);
        builder.connections(limits -> {
            if (properties.getMaxConnections() != null) {
                limits.max(properties.getMaxConnections());
            }
            if (properties.getMaxConnectionsPerAddress() != null) {
                limits.maxPerAddress(properties.getMaxConnectionsPerAddress());
            }
            if (properties.getIdleTimeout() != null) {
                limits.idleTimeout(properties.getIdleTimeout());
            }
        });
        if (properties.getMaxInFlight() != null) {
            builder.limits(limits -> limits.maxInFlight(properties.getMaxInFlight()));
        }
        if (properties.getMaxSessions() != null) {
            builder.sessions(sessions -> sessions.max(properties.getMaxSessions()));
        }
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        return new TernMcpLifecycle(builder);
    }

    private static boolean hasFeatureMethods(Class<?> type) {
        if (type.getName().startsWith("org.springframework.")) {
            return false;
        }
        boolean[] found = {false};
        ReflectionUtils.doWithMethods(type, method -> found[0] = true, TernMcpAutoConfiguration::isFeature);
        return found[0];
    }

    private static boolean isFeature(Method method) {
        return method.isAnnotationPresent(Tool.class) || method.isAnnotationPresent(Resource.class)
                || method.isAnnotationPresent(Prompt.class);
    }
}
