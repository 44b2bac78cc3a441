package dev.tern.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.tern.transport.http.IoTransport;

import picocli.CommandLine;

class ConfigDefaultsTest {
    @TempDir
    Path dir;

    private ServeCommand parse(Map<String, String> env, String... args) throws Exception {
        CommandLine cl = Main.commandLine(List.of(args));
        cl.setDefaultValueProvider(ConfigDefaults.from(List.of(args), env));
        CommandLine.ParseResult result = cl.parseArgs(args);
        return (ServeCommand) result.subcommand().commandSpec().userObject();
    }

    @Test
    void commandLineBeatsEnvironmentBeatsFileBeatsDefaults() throws Exception {
        Path file = dir.resolve("tern.properties");
        Files.writeString(file, "port=9001\npath=/from-file\nexample=conformance\nshutdown-timeout=PT9S\n");

        ServeCommand defaults = parse(Map.of(), "serve");
        assertThat(defaults.port).isEqualTo(8080);
        assertThat(defaults.path).isEqualTo("/mcp");
        assertThat(defaults.example).isEqualTo("user-directory");

        ServeCommand fromFile = parse(Map.of(), "serve", "--config", file.toString());
        assertThat(fromFile.port).isEqualTo(9001);
        assertThat(fromFile.path).isEqualTo("/from-file");
        assertThat(fromFile.shutdownTimeout).isEqualTo(Duration.ofSeconds(9));

        ServeCommand fromEnv = parse(Map.of("TERN_PORT", "9002", "TERN_CONFIG", file.toString(), "TERN_STDIO", "true"), "serve");
        assertThat(fromEnv.port).isEqualTo(9002);
        assertThat(fromEnv.path).isEqualTo("/from-file");
        assertThat(fromEnv.stdio).isTrue();

        ServeCommand fromFlags = parse(Map.of("TERN_PORT", "9002"), "serve", "--config=" + file, "--port", "9003");
        assertThat(fromFlags.port).isEqualTo(9003);
        assertThat(fromFlags.example).isEqualTo("conformance");
    }

    @Test
    void theSessionBoundsComeFromTheFlagsTheEnvironmentOrTheFileAndMustBePositive() throws Exception {
        ServeCommand defaults = parse(Map.of(), "serve");
        assertThat(defaults.maxSessions).isEqualTo(10_000);
        assertThat(defaults.maxSessionsPerClient).isEqualTo(1_000);
        Path file = dir.resolve("bounds.properties");
        Files.writeString(file, "max-sessions=20000\n");
        ServeCommand configured = parse(Map.of("TERN_MAX_SESSIONS_PER_CLIENT", "20000"), "serve", "--config",
                file.toString());
        assertThat(configured.maxSessions).isEqualTo(20_000);
        assertThat(configured.maxSessionsPerClient).isEqualTo(20_000);
        assertThat(parse(Map.of(), "serve", "--max-sessions-per-client", "5").maxSessionsPerClient).isEqualTo(5);
        assertThat(Main.run(Map.of(), "serve", "--port", "0", "--max-sessions-per-client", "0")).isEqualTo(2);
    }

    @Test
    void allowedHostsAndOriginsAreListsFromFlagsOrTheEnvironment() throws Exception {
        assertThat(parse(Map.of(), "serve").allowedHosts).isEmpty();
        ServeCommand flags = parse(Map.of(), "serve", "--allow-host", "a.example", "--allow-host", "b.example,c.example",
                "--allow-origin", "https://app.example");
        assertThat(flags.allowedHosts).containsExactly("a.example", "b.example", "c.example");
        assertThat(flags.allowedOrigins).containsExactly("https://app.example");
        ServeCommand env = parse(Map.of("TERN_ALLOW_HOST", "d.example,e.example"), "serve");
        assertThat(env.allowedHosts).containsExactly("d.example", "e.example");
    }

    @Test
    @org.junit.jupiter.api.Timeout(30)
    void theIoTransportComesFromTheFlagTheEnvironmentOrTheFile() throws Exception {
        assertThat(parse(Map.of(), "serve").io).isEqualTo(IoTransport.AUTO);
        assertThat(parse(Map.of(), "serve", "--io", "nio").io).isEqualTo(IoTransport.NIO);
        assertThat(parse(Map.of("TERN_IO", "epoll"), "serve").io).isEqualTo(IoTransport.EPOLL);
        Path file = dir.resolve("io.properties");
        Files.writeString(file, "io=io-uring\n");
        assertThat(parse(Map.of(), "serve", "--config", file.toString()).io).isEqualTo(IoTransport.IO_URING);
        // refused while the command line is read, before anything starts, in either mode
        assertThat(Main.run(Map.of(), "serve", "--io", "kqueue", "--port", "0")).isEqualTo(2);
        assertThat(Main.run(Map.of(), "serve", "--stdio", "--io", "kqueue")).isEqualTo(2);
        assertThat(Main.run(Map.of("TERN_IO", "kqueue"), "serve", "--port", "0")).isEqualTo(2);
    }

    @Test
    void anUnreadableConfigFileIsReported() {
        assertThat(Main.run(Map.of(), "serve", "--config", dir.resolve("missing.properties").toString())).isEqualTo(2);
    }
}
