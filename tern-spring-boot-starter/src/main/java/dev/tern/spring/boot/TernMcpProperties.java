package dev.tern.spring.boot;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code tern.mcp.*} application properties: where Tern's own HTTP listener serves the application's MCP
 * features, and its main limits. A limit left unset keeps the transport's default.
 */
@ConfigurationProperties("tern.mcp")
public class TernMcpProperties {
    /** Whether to serve the application's MCP features at all. */
    private boolean enabled = true;
    /** Address the MCP listener binds to. */
    private String host = "127.0.0.1";
    /** Port of the MCP listener, apart from the servlet container's; 0 picks a free one. */
    private int port = 8080;
    /** Path of the MCP endpoint. */
    private String path = "/mcp";
    /** Server name sent to clients; the application name when unset. */
    private String name;
    /** Server version sent to clients. */
    private String version = "1.0.0";
    /** Instructions sent to clients on initialize. */
    private String instructions;
    /** Host names accepted besides the loopback ones (DNS rebinding protection). */
    private List<String> allowedHosts = new ArrayList<>();
    /** Browser origins accepted besides the loopback ones. */
    private List<String> allowedOrigins = new ArrayList<>();
    /** How long a stop waits for requests in flight before closing connections. */
    private Duration shutdownTimeout = Duration.ofSeconds(10);
    /** Longest a tool, resource or prompt handler may run. */
    private Duration handlerTimeout;
    /** Most open connections. */
    private Integer maxConnections;
    /** Most open connections from one client address. */
    private Integer maxConnectionsPerAddress;
    /** Idle time after which a connection is closed. */
    private Duration idleTimeout;
    /** Most requests in flight on one connection. */
    private Integer maxInFlight;
    /** Most legacy (2025-11-25) sessions. */
    private Integer maxSessions;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getHost() {
        return host;
    }

    public void setHost(String host) {
        this.host = host;
    }

    public int getPort() {
        return port;
    }

    public void setPort(int port) {
        this.port = port;
    }

    public String getPath() {
        return path;
    }

    public void setPath(String path) {
        this.path = path;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public String getVersion() {
        return version;
    }

    public void setVersion(String version) {
        this.version = version;
    }

    public String getInstructions() {
        return instructions;
    }

    public void setInstructions(String instructions) {
        this.instructions = instructions;
    }

    public List<String> getAllowedHosts() {
        return allowedHosts;
    }

    public void setAllowedHosts(List<String> allowedHosts) {
        this.allowedHosts = allowedHosts;
    }

    public List<String> getAllowedOrigins() {
        return allowedOrigins;
    }

    public void setAllowedOrigins(List<String> allowedOrigins) {
        this.allowedOrigins = allowedOrigins;
    }

    public Duration getShutdownTimeout() {
        return shutdownTimeout;
    }

    public void setShutdownTimeout(Duration shutdownTimeout) {
        this.shutdownTimeout = shutdownTimeout;
    }

    public Duration getHandlerTimeout() {
        return handlerTimeout;
    }

    public void setHandlerTimeout(Duration handlerTimeout) {
        this.handlerTimeout = handlerTimeout;
    }

    public Integer getMaxConnections() {
        return maxConnections;
    }

    public void setMaxConnections(Integer maxConnections) {
        this.maxConnections = maxConnections;
    }

    public Integer getMaxConnectionsPerAddress() {
        return maxConnectionsPerAddress;
    }

    public void setMaxConnectionsPerAddress(Integer maxConnectionsPerAddress) {
        this.maxConnectionsPerAddress = maxConnectionsPerAddress;
    }

    public Duration getIdleTimeout() {
        return idleTimeout;
    }

    public void setIdleTimeout(Duration idleTimeout) {
        this.idleTimeout = idleTimeout;
    }

    public Integer getMaxInFlight() {
        return maxInFlight;
    }

    public void setMaxInFlight(Integer maxInFlight) {
        this.maxInFlight = maxInFlight;
    }

    public Integer getMaxSessions() {
        return maxSessions;
    }

    public void setMaxSessions(Integer maxSessions) {
        this.maxSessions = maxSessions;
    }
}
