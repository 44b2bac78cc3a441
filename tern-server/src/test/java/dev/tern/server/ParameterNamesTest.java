package dev.tern.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import tools.jackson.databind.JsonNode;

/** Feature methods of classes compiled without {@code -parameters}, compiled here with javac as a user's build would. */
class ParameterNamesTest {
    @TempDir
    Path dir;

    @Test
    void aToolWhoseParameterNamesWereNotCompiledInFailsAtRegistrationNamingTheMethodAndTheFix() throws Exception {
        Object service = compileWithoutParameters("Greeter", """
                public class Greeter {
                    @dev.tern.server.Tool
                    public String greet(String name, int times) {
                        return name.repeat(times);
                    }
                }
                """);
        assertThatThrownBy(() -> McpServer.builder().register(service).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Greeter.greet")
                .hasMessageContaining("arg0")
                .hasMessageContaining("-parameters")
                .hasMessageContaining("@Arg(name = ");
    }

    @Test
    void aPromptOrResourceWhoseParameterNamesWereNotCompiledInFailsAtRegistrationToo() throws Exception {
        Object prompts = compileWithoutParameters("Prompts", """
                public class Prompts {
                    @dev.tern.server.Prompt
                    public String review(String code) {
                        return code;
                    }
                }
                """);
        Object resources = compileWithoutParameters("Files", """
                public class Files {
                    @dev.tern.server.Resource(uri = "file:///{path}")
                    public String file(String path) {
                        return path;
                    }
                }
                """);
        assertThatThrownBy(() -> McpServer.builder().register(prompts).build()).hasMessageContaining("Prompts.review");
        assertThatThrownBy(() -> McpServer.builder().register(resources).build()).hasMessageContaining("Files.file");
    }

    @Test
    void parametersNamedWithArgOrGatheredInARecordNeedNoCompiledNames() throws Exception {
        Object service = compileWithoutParameters("Named", """
                import dev.tern.server.Arg;
                public class Named {
                    public record Pair(String left, String right) {}

                    @dev.tern.server.Tool
                    public String greet(@Arg(name = "name") String name, dev.tern.server.RequestContext ctx) {
                        return "Hello, " + name;
                    }

                    @dev.tern.server.Tool
                    public String join(Pair pair) {
                        return pair.left() + pair.right();
                    }
                }
                """);
        try (McpServer server = McpServer.builder().register(service).build(); Peer p = new Peer(server)) {
            JsonNode tools = p.modernRequest("tools/list", null).at("/result/tools");
            assertThat(tools.get(0).get("name").stringValue()).isEqualTo("greet");
            assertThat(tools.get(1).get("name").stringValue()).isEqualTo("join");
            assertThat(tools.get(0).at("/inputSchema/properties").propertyNames()).containsExactly("name");
            assertThat(tools.get(1).at("/inputSchema/properties").propertyNames()).containsExactly("left", "right");
        }
    }

    private Object compileWithoutParameters(String className, String source) throws Exception {
        Path file = dir.resolve(className + ".java");
        Files.writeString(file, source);
        Path out = Files.createDirectories(dir.resolve("classes-" + className));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        List<String> args = new ArrayList<>(List.of("-d", out.toString(), "-classpath", serverClasses(), "-proc:none"));
        args.add(file.toString());
        int status = javac.run(null, null, null, args.toArray(String[]::new));
        assertThat(status).as("javac exit status").isZero();
        URLClassLoader loader = new URLClassLoader(new URL[] {out.toUri().toURL()}, getClass().getClassLoader());
        Class<?> type = loader.loadClass(className);
        assertThat(type.getMethods()).as("compiled without parameter names")
                .filteredOn(m -> m.getParameterCount() > 0 && m.getDeclaringClass() == type)
                .allSatisfy(m -> assertThat(m.getParameters()[0].isNamePresent()).isFalse());
        return type.getDeclaredConstructor().newInstance();
    }

    private static String serverClasses() throws Exception {
        return Path.of(Tool.class.getProtectionDomain().getCodeSource().getLocation().toURI()) + File.pathSeparator
                + System.getProperty("java.class.path");
    }
}
