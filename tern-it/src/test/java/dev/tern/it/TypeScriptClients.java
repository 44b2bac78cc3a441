package dev.tern.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.tern.examples.UserDirectory;
import dev.tern.protocol.Json;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Runs one of the TypeScript SDK client scripts ({@code src/test/js/*-client.mjs}) on Node 22 and checks what it
 * reports: that every check passed, and what the user directory and the interop fixtures must look like from a
 * client.
 */
final class TypeScriptClients {
    static final Duration RUN_TIMEOUT = Duration.ofMinutes(2);
    static final String CANCEL_REASON = "interop test: cancelled by the client";

    private TypeScriptClients() {
    }

    /**
     * Runs {@code script} with {@code config} (written to a file in {@code temp}; npmDir, era, sdk, checks and the
     * timeout are added) and returns its summary once every check in it passed.
     */
    static JsonNode run(String script, ObjectNode config, String sdk, String era, List<String> checks, int allChecks,
            Path temp) throws IOException, InterruptedException {
        Path npmDir = NodeTools.npmDir();
        config.put("npmDir", npmDir.toString());
        config.put("sdk", sdk);
        config.put("era", era);
        config.put("timeoutMs", RUN_TIMEOUT.toMillis() - 10_000);
        if (checks != null) {
            ArrayNode list = config.putArray("checks");
            checks.forEach(list::add);
        }
        Path configFile = Files.createTempFile(temp, "config-" + sdk + "-" + era + "-", ".json");
        Files.writeString(configFile, Json.mapper().writeValueAsString(config));

        Path path = NodeTools.root().resolve("tern-it/src/test/js").resolve(script);
        List<String> command = List.of(NodeTools.node().toString(), path.toString(), configFile.toString());
        NodeTools.Result result = NodeTools.run(command, NodeTools.root(), Map.of("TERN_NPM_DIR", npmDir.toString()),
                RUN_TIMEOUT);

        assertThat(result.timedOut()).as("the client ran too long: %s", result.describe()).isFalse();
        JsonNode summary;
        try {
            summary = Json.mapper().readTree(result.stdout());
        } catch (RuntimeException e) {
            throw new AssertionError("the client printed no JSON summary: " + result.describe(), e);
        }
        String report = Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(summary)
                + "\n--- client stderr\n" + result.stderr();
        assertThat(summary.path("failures").size()).as("failures in:\n%s", report).isZero();
        assertThat(summary.path("clientErrors").size()).as("client errors in:\n%s", report).isZero();
        for (var check : summary.path("checks").properties()) {
            assertThat(check.getValue().path("ok").asBoolean()).as("check %s in:\n%s", check.getKey(), report).isTrue();
        }
        assertThat(summary.path("checks").size()).as(report).isEqualTo(checks == null ? allChecks : checks.size());
        assertThat(summary.path("ok").asBoolean()).as(report).isTrue();
        assertThat(result.exitCode()).as(report).isZero();
        return summary;
    }

    static void assertEra(JsonNode summary, String sdkPackage, String era, String version) throws IOException {
        assertThat(summary.path("sdk").path("package").asString()).isEqualTo(sdkPackage);
        assertThat(summary.path("sdk").path("version").asString()).isEqualTo(NodeTools.pinnedVersion(sdkPackage));
        assertThat(summary.path("era").asString()).isEqualTo(era);
        assertThat(summary.path("protocolVersion").asString()).isEqualTo(version);
    }

    /** The user directory as served: tools, get_user with structured content, user://7, summarize_user, completion. */
    static void assertServing(JsonNode summary) {
        JsonNode checks = summary.path("checks");
        assertThat(names(checks.path("tools").path("names"))).contains("get_user", "search_users", "list_users");
        assertThat(checks.path("tools").path("getUserReadOnly").asBoolean()).isTrue();

        UserDirectory.User seven = UserDirectory.generate(1_000).find("7").orElseThrow();
        JsonNode user = checks.path("get_user").path("structuredContent");
        assertThat(user.path("id").asString()).isEqualTo("7");
        assertThat(user.path("username").asString()).isEqualTo(seven.username());
        assertThat(user.path("email").asString()).isEqualTo(seven.email());
        assertThat(user.path("city").asString()).isEqualTo(seven.address().city());
        assertThat(checks.path("get_user").path("unknownIdError").asString()).contains("no-such-user");

        assertThat(checks.path("resource").path("uri").asString()).isEqualTo("user://7");
        assertThat(checks.path("resource").path("mimeType").asString()).isEqualTo("application/json");
        assertThat(names(checks.path("resource").path("templates"))).contains("user://{id}");

        assertThat(names(checks.path("prompt").path("contentTypes"))).containsExactly("text", "resource");
        assertThat(checks.path("prompt").path("embeddedUri").asString()).isEqualTo("user://7");

        assertThat(names(checks.path("completion").path("values"))).contains("99", "990", "999");
    }

    /**
     * Progress, logging, elicitation and cancellation against {@link InteropServer}. {@code cancelByStream}: the
     * client cancelled by closing the request's response stream (2026-07-28 over HTTP), not by notification.
     */
    static void assertInteractions(JsonNode summary, boolean modern, boolean cancelByStream) {
        JsonNode checks = summary.path("checks");
        assertThat(summary.path("server").path("name").asString()).isEqualTo("tern-interop");

        JsonNode progress = checks.path("progress").path("notifications");
        assertThat(progress.size()).isEqualTo(3);
        for (int i = 0; i < 3; i++) {
            assertThat(progress.get(i).path("progress").asInt()).isEqualTo(i + 1);
            assertThat(progress.get(i).path("total").asInt()).isEqualTo(3);
            assertThat(progress.get(i).path("message").asString()).isEqualTo("step " + (i + 1) + " of 3");
        }

        JsonNode logging = checks.path("logging");
        assertThat(levels(logging.path("atDebug"))).containsExactly("debug", "info", "warning");
        assertThat(levels(logging.path("atWarning"))).containsExactly("warning");
        assertThat(logging.path("levelVia").asString()).isEqualTo(modern ? "_meta" : "logging/setLevel");

        JsonNode elicitation = checks.path("elicitation");
        assertThat(elicitation.path("result").path("action").asString()).isEqualTo("accept");
        assertThat(elicitation.path("result").path("name").asString()).isEqualTo("Ada Lovelace");
        assertThat(elicitation.path("via").asString()).isEqualTo(modern ? "input_required" : "elicitation/create");
        // legacy: the answer to elicitation/create goes back as a response; 2026-07-28: it rides on the retried request
        assertThat(elicitation.path("answersPosted").asInt()).isEqualTo(modern ? 0 : 1);

        JsonNode cancel = checks.path("cancel");
        assertThat(cancel.path("serverSaw").path("count").asInt()).isEqualTo(1);
        assertThat(cancel.path("clientError").asString()).isNotEmpty();
        if (cancelByStream) {
            assertThat(cancel.path("cancelledNotificationsSent").asInt()).isZero();
            assertThat(cancel.path("serverSaw").path("lastReason").asString()).isNotEmpty();
        } else {
            assertThat(cancel.path("cancelledNotificationsSent").asInt()).isEqualTo(1);
            assertThat(cancel.path("serverSaw").path("lastReason").asString()).isEqualTo(CANCEL_REASON);
        }
    }

    static List<String> names(JsonNode array) {
        List<String> names = new ArrayList<>();
        array.forEach(n -> names.add(n.asString()));
        return names;
    }

    private static List<String> levels(JsonNode messages) {
        List<String> levels = new ArrayList<>();
        messages.forEach(m -> levels.add(m.path("level").asString()));
        return levels;
    }
}
