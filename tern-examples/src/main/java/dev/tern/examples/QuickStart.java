package dev.tern.examples;

import dev.tern.server.Arg;
import dev.tern.server.McpServer;
import dev.tern.server.Tool;
import dev.tern.transport.stdio.StdioServerTransport;

/** The README's quick start, compiled and tested so it stays true. */
public final class QuickStart {
    private QuickStart() {
    }

    // README snippet start
    public record Forecast(String city, int highCelsius, String sky) {}

    public static class Weather {
        @Tool(description = "Tomorrow's forecast for a city")
        public Forecast forecast(@Arg(description = "City name") String city) {
            return new Forecast(city, 21, "sunny");
        }
    }

    public static void main(String[] args) throws Exception {
        McpServer server = McpServer.builder().info("weather", "1.0.0").register(new Weather()).build();
        StdioServerTransport.builder(server).build().serve();
    }
    // README snippet end
}
