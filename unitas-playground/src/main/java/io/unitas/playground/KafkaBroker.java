package io.unitas.playground;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * The deployment's Kafka: one Apache Kafka node in KRaft mode (broker and controller in one process, no ZooKeeper),
 * run as its own JVM from the Kafka server classes on the deployment's class path ({@code kafka.Kafka}, from
 * {@code org.apache.kafka:kafka_2.13}, which the packaged {@code unitas-playground.jar} holds). Its configuration
 * ({@code server.properties}, {@code logging.properties}) is written under {@code deploy/kafka/}, its log and data
 * beside it. The regions' wallets replicate through it, a topic per origin region.
 */
final class KafkaBroker {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(600);
    /** Held so that the level sticks: the admin client's configuration dump and reconnect lines would bury the rest. */
    private static final Logger KAFKA_CLIENTS = Logger.getLogger("org.apache.kafka");

    private final Path dir;
    private final int port;
    private final int controllerPort;
    private final List<String> jvm;
    private final List<Listener> regionListeners;
    private volatile ChildProcess process;
    private volatile boolean paused;

    /**
     * A broker on {@code port} (clients) and {@code controllerPort} (its KRaft quorum), files in {@code dir}, and a
     * listener of its own for each of {@code regionListeners}.
     */
    KafkaBroker(Path dir, int port, int controllerPort, List<String> jvm, List<Listener> regionListeners) {
        this.dir = dir;
        this.port = port;
        this.controllerPort = controllerPort;
        this.jvm = List.copyOf(jvm);
        this.regionListeners = List.copyOf(regionListeners);
    }

    /**
     * A listener for one region's clients: the broker listens on {@code port} and advertises {@code advertisedPort}
     * (the region's link proxy in front of it), so a client that bootstraps through the proxy is told to connect to
     * the proxy again, never past it.
     */
    record Listener(String region, int port, int advertisedPort) {
        String name() {
            return "REGION_" + region.toUpperCase(java.util.Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
        }
    }

    /** {@code 127.0.0.1:<port>}, what the wallets' {@code unitas.replication.kafka.bootstrap-servers} names. */
    String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    Path log() {
        return dir.resolve("kafka.log");
    }

    /** Writes its configuration files (written over on every start; the data directory is kept). */
    void writeFiles() {
        Properties p = new Properties();
        p.setProperty("process.roles", "broker,controller");
        p.setProperty("node.id", "1");
        p.setProperty("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        StringBuilder listeners = new StringBuilder("PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:"
                                                    + controllerPort);
        StringBuilder advertised = new StringBuilder("PLAINTEXT://127.0.0.1:" + port);
        StringBuilder protocols = new StringBuilder("PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        for (Listener l : regionListeners) {
            listeners.append(',').append(l.name()).append("://127.0.0.1:").append(l.port());
            advertised.append(',').append(l.name()).append("://127.0.0.1:").append(l.advertisedPort());
            protocols.append(',').append(l.name()).append(":PLAINTEXT");
        }
        p.setProperty("listeners", listeners.toString());
        p.setProperty("advertised.listeners", advertised.toString());
        p.setProperty("controller.listener.names", "CONTROLLER");
        p.setProperty("inter.broker.listener.name", "PLAINTEXT");
        p.setProperty("listener.security.protocol.map", protocols.toString());
        p.setProperty("log.dirs", dir.resolve("data").toString());
        // one node: every internal topic has one replica
        p.setProperty("offsets.topic.replication.factor", "1");
        p.setProperty("offsets.topic.num.partitions", "4");
        p.setProperty("transaction.state.log.replication.factor", "1");
        p.setProperty("transaction.state.log.min.isr", "1");
        p.setProperty("transaction.state.log.num.partitions", "4");
        p.setProperty("share.coordinator.state.topic.replication.factor", "1");
        p.setProperty("share.coordinator.state.topic.min.isr", "1");
        p.setProperty("auto.create.topics.enable", "false"); // the transport creates its topics
        p.setProperty("group.initial.rebalance.delay.ms", "0");
        // two cores shared with a dozen JVMs: few threads
        p.setProperty("num.network.threads", "2");
        p.setProperty("num.io.threads", "2");
        p.setProperty("background.threads", "2");
        p.setProperty("num.recovery.threads.per.data.dir", "1");
        p.setProperty("log.cleaner.threads", "1");
        p.setProperty("log.cleaner.dedupe.buffer.size", String.valueOf(8 * 1024 * 1024));
        try {
            Files.createDirectories(dir);
            try (var out = Files.newBufferedWriter(dir.resolve("server.properties"))) {
                p.store(out, "the deployment's Kafka: one KRaft node, broker and controller");
            }
            // the broker logs through SLF4J to java.util.logging in unitas-playground.jar: its warnings, and its start line
            Files.writeString(dir.resolve("logging.properties"), """
                    handlers = java.util.logging.ConsoleHandler
                    java.util.logging.ConsoleHandler.level = ALL
                    java.util.logging.SimpleFormatter.format = [%1$tF %1$tT] %4$s %5$s (%3$s)%6$s%n
                    .level = WARNING
                    kafka.server.KafkaRaftServer.level = INFO
                    """);
        } catch (IOException e) {
            throw new UncheckedIOException("deploy: cannot write " + dir + ": " + e.getMessage(), e);
        }
    }

    private List<String> command(String main, String... args) {
        List<String> command = new ArrayList<>(jvm);
        int cp = command.indexOf("-cp");
        command.addAll(cp, List.of("-XX:MaxDirectMemorySize=64m",
                                   "-Djava.util.logging.config.file=" + dir.resolve("logging.properties")));
        command.add(main);
        command.addAll(List.of(args));
        return command;
    }

    /**
     * Formats its data directory once (a cluster id of its own; kept across starts) and starts the broker; returns at
     * once ({@link #awaitReady}).
     */
    ChildProcess start(String clusterId) {
        if (!Files.isDirectory(dir.resolve("data"))) {
            ChildProcess format = new ChildProcess("kafka/format", command("kafka.tools.StorageTool", "format",
                    "--cluster-id", clusterId, "--config", dir.resolve("server.properties").toString(),
                    "--ignore-formatted"), log()).start();
            if (!format.awaitExit(START_TIMEOUT) || format.exitValue() != 0) {
                format.kill();
                throw new IllegalStateException("kafka: cannot format " + dir.resolve("data") + "; the end of "
                                                + log() + ":\n" + format.tail(20));
            }
        }
        process = new ChildProcess("kafka", command("kafka.Kafka", dir.resolve("server.properties").toString()),
                                   log()).start();
        return process;
    }

    /** Waits until the broker has registered with its controller and answers clients. */
    void awaitReady() {
        Properties p = new Properties();
        p.setProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.setProperty(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        p.setProperty(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        String last = "no answer";
        KAFKA_CLIENTS.setLevel(Level.WARNING); // this JVM's Kafka clients: its own admin client only
        try (Admin admin = Admin.create(p)) {
            while (System.nanoTime() < deadline) {
                if (!process.alive()) {
                    throw new IllegalStateException("kafka: exited before it answered at " + bootstrapServers()
                                                    + "; the end of " + log() + ":\n" + process.tail(20));
                }
                try {
                    if (!admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).isEmpty()) {
                        return;
                    }
                    last = "no broker registered";
                } catch (ExecutionException | TimeoutException e) {
                    last = String.valueOf(e.getMessage());
                    sleep(); // not yet listening: the client fails at once
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("kafka: interrupted while waiting for it", e);
                }
            }
        }
        throw new IllegalStateException("kafka: not ready at " + bootstrapServers() + " after "
                                        + START_TIMEOUT.toSeconds() + " s (" + last + "); see " + log());
    }

    private static void sleep() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("kafka: interrupted while waiting for it", e);
        }
    }

    /**
     * {@code SIGSTOP} (paused) or {@code SIGCONT} to the broker's process: a real stall, as a broker that hangs in a
     * long pause or on a dead disk. Its sockets stay open; nothing is answered until it continues.
     */
    void pause(boolean paused) {
        ChildProcess p = process;
        if (p == null || !p.alive()) {
            throw new IllegalStateException("kafka: not running (expected: a started deployment with replication)");
        }
        p.signal(paused ? "STOP" : "CONT");
        this.paused = paused;
    }

    /** Stops it ({@code SIGCONT} first when it is paused, so that it can take the {@code SIGTERM}). */
    void stop() {
        ChildProcess p = process;
        if (p != null) {
            if (paused && p.alive()) {
                p.signal("CONT");
                paused = false;
            }
            p.stop();
        }
    }

    ChildProcess process() {
        return process;
    }
}
