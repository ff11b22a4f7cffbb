package io.unitas.cli;

import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import io.unitas.core.health.HealthReport;
import io.unitas.health.HealthConfig;
import io.unitas.health.HealthServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code unitas health}: the region's health agent. */
@Command(name = "health",
         description = "Deep health of one region: can it serve its users right now.",
         subcommands = HealthCommand.Serve.class,
         mixinStandardHelpOptions = true)
final class HealthCommand implements Runnable {

    @ParentCommand
    Main main;

    @Override
    public void run() {
        new picocli.CommandLine(this).usage(main.out());
    }

    /** {@code unitas health serve --config health.yaml}: probe, roll up, serve, push, until stopped. */
    @Command(name = "serve",
             description = "Run the checks of health.yaml and serve /livez /readyz /healthz /metrics and "
                           + "grpc.health.v1.Health until stopped; print every change of the region's health.",
             exitCodeListHeading = "%nExit codes:%n",
             exitCodeList = {"0:stopped", "1:cannot listen", "2:invalid configuration"},
             mixinStandardHelpOptions = true)
    static final class Serve implements Callable<Integer> {

        @ParentCommand
        HealthCommand health;

        @Option(names = "--config", required = true, paramLabel = "FILE", description = "health.yaml")
        Path config;

        @Override
        public Integer call() throws InterruptedException {
            Main main = health.main;
            HealthConfig parsed = HealthConfig.read(config);
            HealthServer server;
            try {
                server = HealthServer.start(parsed, Clock.systemUTC());
            } catch (RuntimeException e) {
                main.err().println("unitas health serve: cannot listen on " + parsed.address() + " (http "
                        + parsed.httpPort() + ", grpc " + parsed.grpcPort() + "): " + rootMessage(e));
                return 1;
            }
            CountDownLatch stopped = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                server.close();
                stopped.countDown();
            }, "unitas-health-stop"));
            String http = "http://" + parsed.address() + ":" + server.httpPort();
            int checks = parsed.checks().size();
            main.out().println("unitas health: region " + parsed.region() + ", " + checks
                    + (checks == 1 ? " check; " : " checks; ") + http + "/readyz /livez /healthz /metrics; grpc.health.v1 on " + parsed.address()
                    + ":" + server.grpcPort() + parsed.push().map(p -> "; pushing to " + p.url()).orElse(""));
            server.agent().subscribe(report -> main.out().println(line(report)));
            stopped.await();
            return 0;
        }

        private static String line(HealthReport report) {
            return report.observedAt().truncatedTo(java.time.temporal.ChronoUnit.MILLIS) + " " + report.region() + " #" + report.sequence() + " "
                   + (report.healthy() ? "healthy" : "UNHEALTHY") + (report.health().writable() ? "" : ", not writable")
                   + ", score " + report.health().score()
                   + (report.reasons().isEmpty() ? "" : ": " + String.join("; ", report.reasons()));
        }

        private static String rootMessage(Throwable e) {
            Throwable root = e;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            return root.getMessage();
        }
    }
}
