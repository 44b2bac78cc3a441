package dev.tern.cli;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

import picocli.CommandLine;

/**
 * Where option values come from when they are not on the command line. Precedence, highest first: the command line,
 * environment variables ({@code TERN_PORT} for {@code --port}, {@code TERN_SHUTDOWN_TIMEOUT} for
 * {@code --shutdown-timeout}), the config file ({@code port=8080}, from {@code --config FILE} or {@code TERN_CONFIG}),
 * then the built-in defaults.
 */
final class ConfigDefaults implements CommandLine.IDefaultValueProvider {
    static final String CONFIG_ENV = "TERN_CONFIG";

    private final Map<String, String> env;
    private final Properties file;

    ConfigDefaults(Map<String, String> env, Properties file) {
        this.env = env;
        this.file = file;
    }

    /** Reads the config file named by {@code --config} in {@code args} or by {@code TERN_CONFIG}, if any. */
    static ConfigDefaults from(List<String> args, Map<String, String> env) throws IOException {
        String path = null;
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("--config") && i + 1 < args.size()) {
                path = args.get(i + 1);
            } else if (a.startsWith("--config=")) {
                path = a.substring("--config=".length());
            }
        }
        if (path == null) {
            path = env.get(CONFIG_ENV);
        }
        Properties properties = new Properties();
        if (path != null) {
            try (Reader reader = Files.newBufferedReader(Path.of(path), StandardCharsets.UTF_8)) {
                properties.load(reader);
            }
        }
        return new ConfigDefaults(env, properties);
    }

    @Override
    public String defaultValue(CommandLine.Model.ArgSpec argSpec) {
        if (!(argSpec instanceof CommandLine.Model.OptionSpec option) || !option.longestName().startsWith("--")) {
            return null;
        }
        String key = option.longestName().substring(2);
        if (key.equals("config") || key.equals("help") || key.equals("version")) {
            return null;
        }
        String fromEnv = env.get("TERN_" + key.toUpperCase(Locale.ROOT).replace('-', '_'));
        if (fromEnv != null) {
            return fromEnv;
        }
        return file.getProperty(key);
    }
}
