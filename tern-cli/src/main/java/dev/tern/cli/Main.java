package dev.tern.cli;

import picocli.CommandLine;

/** The {@code tern} command. */
@CommandLine.Command(name = "tern", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "Tern: a fast Model Context Protocol server runtime for the JVM.",
        subcommands = {ServeCommand.class, CallCommand.class, BenchCommand.class, CommandLine.HelpCommand.class})
public final class Main implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command line and returns the exit code. */
    public static int run(String... args) {
        return run(System.getenv(), args);
    }

    static int run(java.util.Map<String, String> env, String... args) {
        CommandLine commandLine = new CommandLine(new Main()).setCaseInsensitiveEnumValuesAllowed(true);
        try {
            commandLine.setDefaultValueProvider(ConfigDefaults.from(java.util.List.of(args), env));
        } catch (java.io.IOException e) {
            System.err.println("tern: cannot read the config file: " + e.getMessage());
            return 2;
        }
        return commandLine.execute(args);
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.err);
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"tern " + (v == null ? "development build" : v)};
        }
    }
}
