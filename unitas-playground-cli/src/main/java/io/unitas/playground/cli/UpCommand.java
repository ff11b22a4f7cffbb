package io.unitas.playground.cli;

import io.unitas.cli.Main;
import io.unitas.cli.PlaygroundCommands;
import io.unitas.playground.Playground;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code unitas up}: the playground in this process until Ctrl-C. Exit codes: 2 for bad options, 1 when it cannot
 * start (a port is taken).
 */
@Command(name = PlaygroundCommands.UP,
         mixinStandardHelpOptions = true,
         description = PlaygroundCommands.UP_DESCRIPTION)
final class UpCommand implements Callable<Integer> {

    /** Held so that the levels stick (java.util.logging keeps loggers weakly). */
    private static final List<Logger> QUIET = List.of(Logger.getLogger("com.linecorp.armeria"),
                                                      Logger.getLogger("io.netty"), Logger.getLogger("io.micrometer"),
                                                      // the example services' Tomcat and Spring start-up lines
                                                      Logger.getLogger("org.apache.catalina"),
                                                      Logger.getLogger("org.apache.coyote"),
                                                      Logger.getLogger("org.springframework"));

    @ParentCommand
    Main main;

    /** The libraries' per-connection chatter would bury what the playground prints; their errors still show. */
    static void quietLibraries() {
        QUIET.forEach(l -> l.setLevel(Level.SEVERE));
    }

    @Mixin
    PlaygroundOptions options;

    @Option(names = "--example", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Also run the example service pair in every region (an order and an inventory service, "
                          + "Spring Boot with the unitas starter, under /example/ through every gateway); "
                          + "--no-example leaves it out and starts faster (default: on).")
    boolean example;

    @Option(names = "--processes",
            description = "Run every piece as its own process instead, as a team would: the control plane; per region "
                          + "a PostgreSQL server, a gateway, a health agent, two wallet service instances "
                          + "(examples/wallet) and, unless --no-example, two of each example service behind a "
                          + "gateway of their own, each JVM with its config file and log under --deploy-dir.")
    boolean processes;

    @Option(names = "--deploy-dir", paramLabel = "DIR", defaultValue = "deploy",
            description = "With --processes: where the config files and logs go, one folder per region "
                          + "(default: ${DEFAULT-VALUE}; written over).")
    java.nio.file.Path deployDir;

    @Override
    public Integer call() throws InterruptedException {
        quietLibraries();
        if (processes) {
            return new ProcessesUp(main, options, deployDir,
                                   options.replication == null ? "kafka" : options.replication, example).call();
        }
        Playground playground;
        try {
            options.builder().validate();
        } catch (IllegalArgumentException e) {
            main.err().println("unitas up: " + e.getMessage());
            return Main.EXIT_USAGE;
        }
        main.err().println("unitas up: starting " + String.join(", ", options.regions) + " ...");
        try {
            playground = options.builder().example(example).start();
            playground.awaitReady(Duration.ofSeconds(120));
        } catch (RuntimeException e) {
            main.err().println("unitas up: cannot start: " + rootMessage(e));
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            main.err().println("unitas up: stopping ...");
            playground.close();
            main.err().println("unitas up: stopped");
            main.err().flush();
            stopped.countDown();
        }, "unitas-up-shutdown"));
        main.out().print(playground.describe());
        main.out().println("\nready. Ctrl-C stops everything.");
        main.out().flush();
        stopped.await();
        return 0;
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t == e ? String.valueOf(e.getMessage()) : e.getMessage() + " (" + t.getMessage() + ")";
    }
}
