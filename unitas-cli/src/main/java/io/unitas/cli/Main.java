package io.unitas.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code unitas} command. Exit codes shared by every subcommand: 0 success, 2 bad input or arguments;
 * subcommands document their own outcome codes (for example {@code route}: 3 unknown region, 4 no healthy region).
 */
@Command(name = "unitas",
         mixinStandardHelpOptions = true,
         versionProvider = Main.Version.class,
         description = "Active-active across regions: route users to the region that holds their data, "
                       + "fail over in a fixed order, and prove it.",
         subcommands = {
                 CommandLine.HelpCommand.class,
                 GatewayCommand.class,
         })
public final class Main implements Runnable {

    /** Bad input or arguments. */
    public static final int EXIT_USAGE = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Runs the command line and exits with its code. */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command line and returns its exit code; for tests and embedding. */
    public static int run(String... args) {
        CommandLine cli = new CommandLine(new Main());
        cli.setExitCodeExceptionMapper(e -> EXIT_USAGE);
        cli.getCommandSpec().exitCodeOnInvalidInput(EXIT_USAGE);
        return cli.execute(args);
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
