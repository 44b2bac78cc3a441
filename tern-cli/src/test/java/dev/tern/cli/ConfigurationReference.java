package dev.tern.cli;

import java.util.List;
import java.util.Locale;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/** docs/configuration.md, written from the options of the {@code tern} command as picocli reads them. */
final class ConfigurationReference {
    static final String REGENERATE = "./mvnw -B -ntp -q -pl tern-cli -am test -Dtest=ConfigurationReferenceTest "
            + "-Dsurefire.failIfNoSpecifiedTests=false -Dtern.docs.write=true";

    private ConfigurationReference() {
    }

    static String markdown() {
        StringBuilder md = new StringBuilder();
        md.append("# Configuration reference\n\n")
                .append("Every option of every `tern` command. This page is generated from the command's own definitions ")
                .append("(a test fails when the two differ); regenerate it with\n`").append(REGENERATE).append("`.\n\n")
                .append("An option's value comes from, highest first: the command line; an environment variable named ")
                .append("after it (`TERN_` and the option's name in capitals, dashes as underscores: `TERN_PORT` for ")
                .append("`--port`); a properties file given by `--config FILE` or `TERN_CONFIG` (keys are option names ")
                .append("without dashes: `port=9000`); the default. Durations are written `5s`, `500ms`, `2m`, `1h` or ")
                .append("ISO-8601 (`PT5S`) alike. A flag (an option without a value) is set from the environment or file ")
                .append("with `true`.\n");
        CommandLine root = Main.commandLine(List.of());
        for (String name : List.of("serve", "call", "bench")) {
            CommandLine command = root.getSubcommands().get(name);
            section(md, "tern " + name, command);
            for (CommandLine sub : command.getSubcommands().values()) {
                section(md, "tern " + name + " " + sub.getCommandName(), sub);
            }
        }
        return md.toString();
    }

    private static void section(StringBuilder md, String title, CommandLine command) {
        CommandSpec spec = command.getCommandSpec();
        md.append("\n## `").append(title).append("`\n\n");
        md.append(String.join(" ", spec.usageMessage().description())).append("\n\n");
        md.append("| option | environment / config key | default | what it sets |\n|---|---|---|---|\n");
        for (OptionSpec option : spec.options()) {
            if (option.hidden() || option.usageHelp() || option.versionHelp()) {
                continue;
            }
            String name = option.longestName();
            String key = name.startsWith("--") ? name.substring(2) : null;
            String label = option.arity().max() == 0 ? "" : " " + option.paramLabel();
            md.append("| `").append(String.join("`, `", option.names())).append(label).append("` | ")
                    .append(key == null || key.equals("config") ? "" : "`TERN_" + key.toUpperCase(Locale.ROOT).replace('-', '_')
                            + "` / `" + key + "`")
                    .append(" | ").append(option.defaultValue() == null ? "" : "`" + option.defaultValue() + "`")
                    .append(" | ").append(cell(String.join(" ", option.description()))).append(" |\n");
        }
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }
}
