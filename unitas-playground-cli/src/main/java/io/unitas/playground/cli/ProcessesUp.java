package io.unitas.playground.cli;

import io.unitas.cli.Main;
import io.unitas.core.Region;
import io.unitas.playground.ProcessDeployment;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code unitas up --processes}: the deployment of separate processes until Ctrl-C, which stops every process it
 * started. Each JVM runs from this command's own class path (the packaged {@code unitas-playground.jar}, which
 * holds the {@code unitas} command, the wallet service and the example pair).
 */
final class ProcessesUp implements Callable<Integer> {

    private final Main main;
    private final PlaygroundOptions options;
    private final Path deployDir;
    private final String replication;
    private final boolean example;

    ProcessesUp(Main main, PlaygroundOptions options, Path deployDir, String replication, boolean example) {
        this.main = main;
        this.options = options;
        this.deployDir = deployDir;
        this.replication = replication;
        this.example = example;
    }

    /** The deployment these options describe; {@link IllegalArgumentException} for a bad region or port. */
    static ProcessDeployment.Builder builder(Main main, PlaygroundOptions options, Path deployDir) {
        try {
            return ProcessDeployment.builder().regions(options.regions.stream().map(Region::of).toList())
                                    .portsFrom(options.portsFrom).deployDir(deployDir)
                                    .classPath(System.getProperty("java.class.path"))
                                    .progress(line -> main.err().println("unitas up: " + line)).validate();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--regions: " + e.getMessage(), e);
        }
    }

    /** {@code kafka} or {@code none}, as {@code --replication} names it. */
    static ProcessDeployment.Replication replication(String name) {
        try {
            return ProcessDeployment.Replication.of(name);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--replication: '" + name + "' (expected: kafka or none)", e);
        }
    }

    @Override
    public Integer call() throws InterruptedException {
        ProcessDeployment.Builder builder;
        try {
            builder = builder(main, options, deployDir);
            builder.replication(replication(replication)).example(example);
        } catch (IllegalArgumentException e) {
            main.err().println("unitas up: " + e.getMessage());
            return Main.EXIT_USAGE;
        }
        main.err().println("unitas up: starting " + String.join(", ", options.regions) + " as separate processes"
                           + " (configs and logs in " + deployDir + "; replication " + replication
                           + (example ? "; with the example pair" : "") + ") ...");
        CountDownLatch stopped = new CountDownLatch(1);
        ProcessDeployment[] running = new ProcessDeployment[1];
        // registered before the start: Ctrl-C while it starts stops what has started so far
        Thread hook = new Thread(() -> {
            ProcessDeployment d;
            synchronized (running) {
                d = running[0];
            }
            if (d != null) {
                main.err().println("unitas up: stopping every process ...");
                d.close();
                main.err().println("unitas up: stopped");
                main.err().flush();
            }
            stopped.countDown();
        }, "unitas-up-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        ProcessDeployment deployment;
        try {
            deployment = builder.start();
        } catch (RuntimeException e) {
            main.err().println("unitas up: cannot start: " + UpCommand.rootMessage(e));
            return 1;
        }
        synchronized (running) {
            running[0] = deployment;
        }
        main.out().print(deployment.describe());
        main.out().println("\nready. Ctrl-C stops every process.");
        main.out().flush();
        stopped.await();
        return 0;
    }
}
