package dev.tern.it;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What {@code tern} says on the command line when it cannot do what it was asked, and the help's examples as written. */
class ServeCommandLineTest {

    @Test
    void servingOnAPortInUseSaysSoInOneLineNamingTheAddressAndPort() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                TernProcess tern = TernProcess.main(dev.tern.cli.Main.class, "serve", "--port",
                        Integer.toString(taken.getLocalPort()))) {
            assertThat(tern.waitFor(60, TimeUnit.SECONDS)).as(tern.stderr()).isEqualTo(1);
            String err = tern.stderr();
            assertThat(err).doesNotContain("Exception").doesNotContain("\tat ").doesNotContain("WARNING");
            assertThat(err.lines().filter(line -> line.startsWith("tern serve:"))).singleElement().asString()
                    .startsWith("tern serve: cannot listen on 127.0.0.1:" + taken.getLocalPort() + ": Address already in use")
                    .contains("choose another port with --port");
        }
    }

    @Test
    void theStdioExampleOfCallsHelpRunsAsWrittenFromTheRepository() throws Exception {
        Path root = NodeTools.root();
        NodeTools.Result help = NodeTools.run(List.of(TernProcess.javaExecutable(), "-cp", TernProcess.classpath(),
                "dev.tern.cli.Main", "call", "--help"), root, Map.of(), Duration.ofMinutes(1));
        assertThat(help.exitCode()).as(help.describe()).isZero();
        List<String> examples = new ArrayList<>();
        for (String line : help.stdout().lines().toList()) {
            if (line.strip().startsWith("./tern call --stdio")) {
                examples.add(line.strip());
            }
        }
        assertThat(examples).as(help.stdout()).hasSize(1);
        NodeTools.Result run = NodeTools.run(List.of("bash", "-c", examples.get(0)), root,
                Map.of("TERN_STARTUP_CACHE", "off"), Duration.ofMinutes(3));
        assertThat(run.exitCode()).as(run.describe()).isZero();
        assertThat(run.stdout()).contains("\"uri\" : \"users://stats\"");
    }
}
