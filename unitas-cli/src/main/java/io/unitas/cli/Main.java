package io.unitas.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceLoader;

import io.unitas.config.ConfigException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code unitas} command. Exit codes shared by every subcommand: 0 success, 2 bad input or arguments;
 * subcommands document their own outcome codes (for example {@code route}: 3 unknown region, 4 no healthy region).
 */
@Command(name = "unitas",
         mixinStandardHelpOptions = true,
         versionProvider = Main.Version.class,
         footerHeading = "%nEnvironment:%n",
         footer = {"  UNITAS_LOG_FORMAT  how the pieces log (warnings and errors, on stderr): text (default), or "
                   + "json for one JSON object per line (time, level, logger, thread, message, error)"},
         description = "Active-active across regions: route users to the region that holds their data, "
                       + "fail over in a fixed order, and prove it.",
         subcommands = {
                 CommandLine.HelpCommand.class,
                 RouteCommand.class,
                 ReplayCommand.class,
                 RulesCommand.class,
                 CheckCommand.class,
                 ProbeCommand.class,
                 HealthCommand.class,
                 ControlCommand.class,
                 RelayCommand.class,
                 CtlCommand.class,
                 GatewayCommand.class,
                 DnsCommand.class,
                 // then the playground's (up, drill, demo: commandLine adds them), siblings and sagas
         })
public final class Main implements Runnable {

    /** Bad input or arguments. */
    public static final int EXIT_USAGE = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private final PrintStream out;
    private final PrintStream err;

    private Main(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /** Runs the command line and exits with its code. */
    public static void main(String[] args) {
        try {
            Logging.Format format = Logging.Format.of(System.getenv(Logging.FORMAT_VARIABLE));
            if (System.getProperty("java.util.logging.config.file") == null) { // else that file says it all
                Logging.toStderr(format);
            }
        } catch (IllegalArgumentException e) {
            System.err.println("unitas: " + e.getMessage());
            System.exit(EXIT_USAGE);
        }
        System.exit(run(args));
    }

    /** Runs the command line and returns its exit code; for tests and embedding. */
    public static int run(String... args) {
        return run(System.out, System.err, args);
    }

    /**
     * Runs the command line with its output on {@code out} and its messages on {@code err}, and returns its exit
     * code. An invalid input file is reported as one line per problem, with exit code {@link #EXIT_USAGE}.
     */
    public static int run(PrintStream out, PrintStream err, String... args) {
        return commandLine(out, err).execute(args);
    }

    /**
     * The whole command tree, writing to {@code out} and {@code err}, ready to execute: the server's commands, and
     * the playground's from a {@link CommandSet} on the class path ({@code unitas-playground.jar}), else their
     * placeholders.
     */
    static CommandLine commandLine(PrintStream out, PrintStream err) {
        Main main = new Main(out, err);
        CommandLine cli = new CommandLine(main);
        Map<String, CommandLine> added = new LinkedHashMap<>();
        for (CommandSet set : ServiceLoader.load(CommandSet.class, Main.class.getClassLoader())) {
            for (Object command : set.commands()) {
                CommandLine sub = new CommandLine(command);
                added.put(sub.getCommandName(), sub);
            }
        }
        for (String name : PlaygroundCommands.NAMES) {
            CommandLine sub = added.remove(name);
            cli.addSubcommand(sub != null ? sub : PlaygroundCommands.placeholder(main, name));
        }
        added.values().forEach(cli::addSubcommand);
        cli.addSubcommand(new SiblingsCommand());
        cli.addSubcommand(new SagasCommand());
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        cli.setExitCodeExceptionMapper(e -> EXIT_USAGE);
        cli.getCommandSpec().exitCodeOnInvalidInput(EXIT_USAGE);
        cli.setExecutionExceptionHandler((e, command, parsed) -> {
            if (e instanceof ConfigException problems) {
                problems.problems().forEach(err::println);
                err.flush();
                return EXIT_USAGE;
            }
            throw e;
        });
        return cli;
    }

    /** Where subcommands write their results. */
    public PrintStream out() {
        return out;
    }

    /** Where subcommands write messages for a person. */
    public PrintStream err() {
        return err;
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** Reads the version Maven wrote into the jar. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            Properties p = new Properties();
            try (InputStream in = Main.class.getResourceAsStream("version.properties")) {
                if (in != null) {
                    p.load(in);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return new String[] {"unitas " + p.getProperty("version", "unknown")};
        }
    }
}
