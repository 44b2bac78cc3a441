package dev.tern.cli;

import java.util.List;

import picocli.CommandLine;

/** The {@code tern} command. */
@CommandLine.Command(name = "tern", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "Tern: a fast Model Context Protocol server runtime for the JVM.")
public final class Main implements Runnable {
    private static final List<String> SUBCOMMANDS = List.of("serve", "dev", "call", "bench", "new");

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
        defaultSystemProperties(System.getProperties());
        preloadFor(List.of(args));
        CommandLine commandLine = commandLine(List.of(args)).setCaseInsensitiveEnumValuesAllowed(true);
        try {
            commandLine.setDefaultValueProvider(ConfigDefaults.from(java.util.List.of(args), env));
        } catch (java.io.IOException e) {
            System.err.println("tern: cannot read the config file: " + e.getMessage());
            return 2;
        }
        return commandLine.execute(args);
    }

    /**
     * The command line for {@code args}. Picocli reads the options of every subcommand it is given when it is built, a
     * large share of tern's start-up: a command line naming its subcommand gets only that one.
     */
    static CommandLine commandLine(List<String> args) {
        CommandLine commandLine = new CommandLine(new Main());
        String named = args.isEmpty() ? "" : args.get(0);
        boolean onlyNamed = SUBCOMMANDS.contains(named);
        for (String name : SUBCOMMANDS) {
            if (!onlyNamed || name.equals(named)) {
                commandLine.addSubcommand(name, subcommand(name));
            }
        }
        if (!onlyNamed) {
            commandLine.addSubcommand("help", new CommandLine.HelpCommand());
        }
        return commandLine;
    }

    /**
     * System properties tern sets unless the JVM was given them. Netty's JFR events (buffer and chunk allocations)
     * register with the flight recorder when its allocator first runs, which starts JFR's metadata repository: about
     * 90 ms of tern serve's start-up on two cores, for events no recording asked for ({@code
     * -Dio.netty.jfr.enabled=true} brings them back). Netty's leak detection tracks one buffer in 128 and takes a
     * stack trace of each, ~0.35 µs of an MCP call's ~7 µs of user-space CPU (BENCHMARKS.md, "Leak detection");
     * tern's tests track every buffer and fail on a leak instead. A level given to the JVM, under Netty's current or
     * older property name, is left as it is.
     */
    static void defaultSystemProperties(java.util.Properties properties) {
        properties.putIfAbsent("io.netty.jfr.enabled", "false");
        if (properties.getProperty("io.netty.leakDetectionLevel") == null
                && properties.getProperty("io.netty.noResourceLeakDetection") == null) {
            properties.putIfAbsent("io.netty.leakDetection.level", "disabled");
        }
    }

    /**
     * For {@code tern serve} over HTTP, loads the native transport and the JSON mapper on another thread while this one
     * reads the command line (picocli is a large share of the start-up, and its work depends on nothing of theirs).
     * A failure there is left for the server's own start to meet and report.
     */
    private static void preloadFor(List<String> args) {
        if (args.isEmpty() || !args.get(0).equals("serve") || args.contains("--stdio") || args.contains("--help")) {
            return;
        }
        Thread.ofPlatform().daemon().name("tern-preload").start(() -> {
            try {
                dev.tern.protocol.Json.mapper();
                dev.tern.transport.http.HttpServerTransport.preload(ioTransportNamedIn(args));
            } catch (RuntimeException | LinkageError e) {
                // the start proper loads the same classes and reports what fails
            }
        });
    }

    /** The transport {@code --io} names on the command line (the environment's or config file's are not read yet). */
    private static dev.tern.transport.http.IoTransport ioTransportNamedIn(List<String> args) {
        for (int i = 0; i < args.size(); i++) {
            String value = args.get(i).equals("--io") && i + 1 < args.size() ? args.get(i + 1)
                    : args.get(i).startsWith("--io=") ? args.get(i).substring("--io=".length()) : null;
            if (value != null) {
                try {
                    return dev.tern.transport.http.IoTransport.parse(value);
                } catch (IllegalArgumentException e) {
                    break; // the command line's own reading reports it
                }
            }
        }
        return dev.tern.transport.http.IoTransport.AUTO;
    }

    private static Object subcommand(String name) {
        return switch (name) {
            case "serve" -> new ServeCommand();
            case "call" -> new CallCommand();
            case "bench" -> BenchCommand.commandLine();
            case "new" -> new NewCommand();
            case "dev" -> new DevCommand();
            default -> throw new IllegalArgumentException(name);
        };
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
