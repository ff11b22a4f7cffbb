package io.unitas.cli;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import io.unitas.control.ControlServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code unitas control}: runs the control plane until stopped. */
@Command(name = "control",
         description = "Run the control plane: versioned topology, rules, fences, health and switchovers, "
                       + "its HTTP API under /api/v1, the watch stream and the console at /.",
         mixinStandardHelpOptions = true)
final class ControlCommand implements Callable<Integer> {

    /** Where the state lives. */
    enum Store { embedded, etcd }

    @ParentCommand
    Main main;

    @Option(names = "--data", paramLabel = "DIR", defaultValue = "unitas-control-data",
            description = "embedded store and default tokens file (default: ${DEFAULT-VALUE})")
    Path data;

    @Option(names = "--port", defaultValue = "7070", description = "port on 127.0.0.1 (default: ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--store", defaultValue = "embedded", description = "embedded or etcd (default: ${DEFAULT-VALUE})")
    Store store;

    @Option(names = "--etcd", paramLabel = "URLS", split = ",",
            description = "etcd endpoints for --store etcd, comma-separated (http://127.0.0.1:2379)")
    List<URI> etcd;

    @Option(names = "--etcd-prefix", defaultValue = "/unitas/", description = "key prefix in etcd")
    String etcdPrefix;

    @Option(names = "--tokens", paramLabel = "FILE",
            description = "tokens file, lines 'name role sha256:<hex>' (default: DIR/tokens, created with an "
                          + "admin token on first start, its secret in DIR/admin-token)")
    Path tokens;

    @Option(names = "--health-ttl", defaultValue = "30s", paramLabel = "DURATION",
            converter = ProbeCommand.DurationConverter.class,
            description = "a region without a report for this long is stale (default: ${DEFAULT-VALUE})")
    Duration healthTtl;

    @Option(names = "--health-grace", defaultValue = "30s", paramLabel = "DURATION",
            converter = ProbeCommand.DurationConverter.class,
            description = "a stale region turns unhealthy after this much more (default: ${DEFAULT-VALUE})")
    Duration healthGrace;

    @Override
    public Integer call() throws InterruptedException {
        ControlServer.Builder b = ControlServer.builder().port(port).dataDir(data).etcdPrefix(etcdPrefix)
                .healthFreshness(healthTtl, healthGrace);
        if (tokens != null) {
            b.tokens(tokens);
        }
        if (store == Store.etcd) {
            if (etcd == null || etcd.isEmpty()) {
                main.err().println("unitas control: --store etcd needs --etcd URLS (expected: http://host:2379,...)");
                return Main.EXIT_USAGE;
            }
            b.etcd(etcd);
        }
        ControlServer server = b.start();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }));
        main.out().println("unitas control: serving " + server.uri() + " (console " + server.uri() + "/, store "
                           + (store == Store.etcd ? "etcd " + etcd : "embedded in " + data.toAbsolutePath()) + ")");
        server.generatedTokenFile().ifPresent(f -> main.out().println(
                "unitas control: created " + data.resolve("tokens") + " with an admin token; its secret is in " + f
                + " (readable by you only; remove it once kept elsewhere):\n  export UNITAS_TOKEN=$(cat " + f + ")"));
        main.out().flush();
        stopped.await();
        return 0;
    }
}
