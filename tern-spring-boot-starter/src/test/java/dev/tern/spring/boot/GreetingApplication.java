package dev.tern.spring.boot;

import dev.tern.server.Arg;
import dev.tern.server.Tool;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.stereotype.Component;

/** The example application: a tool bean that uses another injected bean, served with no code of Tern's at all. */
@SpringBootApplication
public class GreetingApplication {

    /** A plain application bean that knows nothing of MCP. */
    @Component
    public static class Salutations {
        public String greet(String name) {
            return "Hello, " + name + "!";
        }
    }

    /** The tool bean: Spring injects its collaborator, Tern serves its {@code @Tool} method. */
    @Component
    public static class GreetingTools {
        private final Salutations salutations;

        public GreetingTools(Salutations salutations) {
            this.salutations = salutations;
        }

        @Tool(description = "Greets a person by name")
        public String greet(@Arg(description = "Who to greet") String name) {
            return salutations.greet(name);
        }
    }

    @Bean
    TernMcpServerCustomizer instructions() {
        return server -> server.instructions("Greets people.");
    }
}
