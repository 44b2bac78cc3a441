package dev.tern.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** The stdio load driver, run as the benchmark runs it: its own JVM, driving a server process through pipes. */
@EnabledOnOs(OS.LINUX)
class StdioFloodTest {
    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    private static final String CLASS_PATH = System.getProperty("java.class.path");

    @Test
    void atAFixedRateReportsEveryMeasuredReplyAndTheServersCpu() throws Exception {
        Run run = flood(List.of("--rate", "4000", "--requests", "2000", "--warmup", "1000", "--window", "500"),
                echoServer());

        assertThat(run.exitCode).as(run.output).isZero();
        assertThat(run.output).contains("open 4000/s, window 500", "calls 2000 ", "errors 0");
        assertThat(number(run.output, "calls/s")).isBetween(3000.0, 5000.0);
        assertThat(number(run.output, "p50 ms")).isPositive();
        assertThat(number(run.output, "p99 ms")).isGreaterThanOrEqualTo(number(run.output, "p50 ms"));
        assertThat(number(run.output, "server CPU/call us")).isPositive();
        assertThat(number(run.output, "driver CPU/call us")).isPositive();
    }

    @Test
    void closedLoopKeepsAtMostTheWindowInFlightAndCountsEveryReply() throws Exception {
        Run run = flood(List.of("--requests", "60000", "--warmup", "20000", "--window", "16"), echoServer());

        assertThat(run.exitCode).as(run.output).isZero();
        assertThat(run.output).contains("closed, window 16", "calls 60000 ", "errors 0");
        assertThat(number(run.output, "server CPU/call us")).isPositive();
    }

    @Test
    void aServerThatAnswersNothingIsAFailedRunNotAFigure() throws Exception {
        Run run = flood(List.of("--requests", "100", "--warmup", "100", "--seconds", "5"), List.of("true"));

        assertThat(run.exitCode).isEqualTo(1);
        assertThat(run.output).contains("no measured replies (received 0 of 200)");
    }

    private static List<String> echoServer() {
        return List.of(JAVA, "-cp", CLASS_PATH, StdioEcho.class.getName());
    }

    private record Run(int exitCode, String output) {
    }

    private static Run flood(List<String> options, List<String> server) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(JAVA, "-cp", CLASS_PATH, StdioFlood.class.getName()));
        command.addAll(options);
        command.add("--");
        command.addAll(server);
        Process flood = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] output = flood.getInputStream().readAllBytes();
        assertThat(flood.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(flood.exitValue(), new String(output, StandardCharsets.UTF_8));
    }

    private static double number(String output, String label) {
        Matcher m = Pattern.compile(Pattern.quote(label) + " ([0-9.]+)").matcher(output);
        assertThat(m.find()).as("%s in %s", label, output).isTrue();
        return Double.parseDouble(m.group(1));
    }
}
