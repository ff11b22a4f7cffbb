package io.unitas.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;

/**
 * Apache Kafka in KRaft mode (no ZooKeeper): one broker, or three for fault tests, each a child JVM running
 * {@code kafka.Kafka} from the Kafka server artifacts on this JVM's classpath ({@code org.apache.kafka:kafka_2.13},
 * declared by the module whose tests use it), on free ports of 127.0.0.1, with its data in a temporary directory.
 * Every node is a combined broker and controller, so a three-node cluster keeps a controller quorum when one is
 * killed. A node can be {@link #kill killed} ({@code SIGKILL}, nothing flushed) and {@link #restart restarted} on the
 * same data directory.
 *
 * <p>Sized for a small shared machine (two cores): each node's JVM has a 384 MB heap ({@code -Xmx384m}), the serial
 * collector (no concurrent GC threads competing for the cores), 128 MB of direct memory, and two network and two I/O
 * threads. Topics are replicated to every node (up to three) with {@code min.insync.replicas} of 2 on three nodes, so
 * a producer with {@code acks=all} survives one node down. A killed node is noticed within 6 s
 * ({@code broker.session.timeout.ms}), not Kafka's default 9 s.
 * With {@code fsync}, each node flushes its log to disk on every message ({@code log.flush.interval.messages=1}), as
 * a benchmark with fsync on needs; otherwise Kafka's default (the page cache, durability by replication).
 */
public final class KafkaCluster implements AutoCloseable {

    private static final Duration SLOW = Duration.ofSeconds(90);
    /**
     * A node killed mid-stream recovers its log and catches up the metadata before it registers: a build that shared
     * the machine with others saw it take more than {@link #SLOW}.
     */
    private static final Duration RECOVERY = Duration.ofMinutes(3);
    private static final Shared<KafkaCluster> SHARED = new Shared<>(() -> start(1, false), KafkaCluster::close);
    private static final Shared<KafkaCluster> SHARED_TRIO = new Shared<>(() -> start(3, false), KafkaCluster::close);

    private final Path dir = ServerProcesses.tempDir("unitas-kafka-", null);
    private final String clusterId = newClusterId();
    private final int size;
    private final boolean fsync;
    private final int[] brokerPorts;
    private final int[] controllerPorts;
    private final Process[] processes;

    private KafkaCluster(int size, boolean fsync) {
        if (size != 1 && size != 3) {
            throw new IllegalArgumentException("brokers: " + size + " (expected: 1 or 3)");
        }
        this.size = size;
        this.fsync = fsync;
        this.brokerPorts = new int[size];
        this.controllerPorts = new int[size];
        this.processes = new Process[size];
        for (int i = 0; i < size; i++) {
            brokerPorts[i] = Ports.free();
            controllerPorts[i] = Ports.free();
        }
    }

    /** The single broker shared by every test of this JVM, started on first use and stopped when the JVM exits. */
    public static KafkaCluster shared() {
        return SHARED.get();
    }

    /**
     * The three-broker cluster shared by every test of this JVM. A test that kills a node restarts it before it ends.
     */
    public static KafkaCluster sharedTrio() {
        return SHARED_TRIO.get();
    }

    /**
     * Starts a new cluster of {@code brokers} nodes (1 or 3), flushing every message to disk when {@code fsync}; the
     * caller closes it.
     */
    public static KafkaCluster start(int brokers, boolean fsync) {
        return Shared.booted(new KafkaCluster(brokers, fsync), KafkaCluster::boot);
    }

    private void boot() {
        for (int node = 0; node < size; node++) {
            Path config = writeConfig(node);
            ServerProcesses.run(Duration.ofMinutes(2), java(node, "kafka.tools.StorageTool", "format", "--cluster-id",
                                                             clusterId, "--config", config.toString(),
                                                             "--ignore-formatted"));
        }
        for (int node = 0; node < size; node++) {
            launch(node);
        }
        awaitReady(SLOW);
    }

    private Path nodeDir(int node) {
        return dir.resolve("node-" + (node + 1));
    }

    private Path writeConfig(int node) {
        Properties p = new Properties();
        StringJoiner voters = new StringJoiner(",");
        for (int i = 0; i < size; i++) {
            voters.add((i + 1) + "@127.0.0.1:" + controllerPorts[i]);
        }
        p.setProperty("process.roles", "broker,controller");
        p.setProperty("node.id", String.valueOf(node + 1));
        p.setProperty("controller.quorum.voters", voters.toString());
        p.setProperty("listeners", "PLAINTEXT://127.0.0.1:" + brokerPorts[node] + ",CONTROLLER://127.0.0.1:"
                                   + controllerPorts[node]);
        p.setProperty("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPorts[node]);
        p.setProperty("controller.listener.names", "CONTROLLER");
        p.setProperty("inter.broker.listener.name", "PLAINTEXT");
        p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.setProperty("log.dirs", nodeDir(node).resolve("data").toString());
        String replicas = String.valueOf(size);
        String minIsr = size == 3 ? "2" : "1";
        p.setProperty("default.replication.factor", replicas);
        p.setProperty("min.insync.replicas", minIsr);
        p.setProperty("offsets.topic.replication.factor", replicas);
        p.setProperty("offsets.topic.num.partitions", "4");
        p.setProperty("transaction.state.log.replication.factor", replicas);
        p.setProperty("transaction.state.log.min.isr", minIsr);
        p.setProperty("transaction.state.log.num.partitions", "4");
        p.setProperty("share.coordinator.state.topic.replication.factor", replicas);
        p.setProperty("share.coordinator.state.topic.min.isr", minIsr);
        p.setProperty("num.partitions", "4");
        p.setProperty("auto.create.topics.enable", "false");
        p.setProperty("group.initial.rebalance.delay.ms", "0");
        // a small machine: few threads per node
        p.setProperty("num.network.threads", "2");
        p.setProperty("num.io.threads", "2");
        p.setProperty("background.threads", "2");
        p.setProperty("num.replica.fetchers", "1");
        p.setProperty("num.recovery.threads.per.data.dir", "1");
        p.setProperty("log.cleaner.threads", "1");
        p.setProperty("log.cleaner.dedupe.buffer.size", String.valueOf(8 * 1024 * 1024));
        // a killed node is noticed in seconds, not the default's tens of seconds
        p.setProperty("broker.session.timeout.ms", "6000");
        p.setProperty("broker.heartbeat.interval.ms", "1000");
        p.setProperty("replica.lag.time.max.ms", "6000");
        if (fsync) {
            p.setProperty("log.flush.interval.messages", "1");
        }
        try {
            Files.createDirectories(nodeDir(node));
            Path file = nodeDir(node).resolve("server.properties");
            try (var out = Files.newBufferedWriter(file)) {
                p.store(out, "unitas testkit: KRaft node " + (node + 1) + " of " + size);
            }
            Path log4j = nodeDir(node).resolve("log4j2.properties");
            Files.writeString(log4j, """
                    rootLogger.level = WARN
                    rootLogger.appenderRef.out.ref = out
                    appender.out.type = Console
                    appender.out.name = out
                    appender.out.layout.type = PatternLayout
                    appender.out.layout.pattern = [%d] %p %m (%c)%n
                    """);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private List<String> java(int node, String main, String... args) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms64m", "-Xmx384m", "-XX:+UseSerialGC", "-XX:MaxDirectMemorySize=128m", "-Xss512k",
                "-Djava.awt.headless=true",
                "-Dlog4j2.configurationFile=" + nodeDir(node).resolve("log4j2.properties"),
                "-cp", System.getProperty("java.class.path"), main));
        command.addAll(List.of(args));
        return command;
    }

    private void launch(int node) {
        processes[node] = ServerProcesses.start(java(node, "kafka.Kafka",
                                                     nodeDir(node).resolve("server.properties").toString()),
                                                nodeDir(node).resolve("kafka.log"));
    }

    /** Waits until every running node is registered with the controller and unfenced. */
    private void awaitReady(Duration timeout) {
        try (Admin admin = admin()) {
            ServerProcesses.await("kafka brokers", timeout, () -> {
                for (int node = 0; node < size; node++) {
                    if (processes[node] != null && !processes[node].isAlive()) {
                        throw new IllegalStateException("kafka node " + (node + 1) + " exited; see "
                                                        + nodeDir(node).resolve("kafka.log"));
                    }
                }
                int running = (int) java.util.Arrays.stream(processes).filter(p -> p != null && p.isAlive()).count();
                int registered = admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).size();
                if (registered < running) {
                    throw new IllegalStateException(registered + " of " + running + " brokers registered");
                }
                return null;
            });
        }
    }

    /** An admin client of this cluster; the caller closes it. */
    public Admin admin() {
        Properties p = new Properties();
        p.setProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.setProperty(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        p.setProperty(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
        return Admin.create(p);
    }

    /** {@code 127.0.0.1:<port>,...}, every node's client listener. */
    public String bootstrapServers() {
        StringJoiner servers = new StringJoiner(",");
        for (int port : brokerPorts) {
            servers.add("127.0.0.1:" + port);
        }
        return servers.toString();
    }

    /** How many nodes the cluster has. */
    public int size() {
        return size;
    }

    /** The node ids (1..size) of the nodes whose process is running. */
    public List<Integer> running() {
        List<Integer> running = new ArrayList<>();
        for (int node = 0; node < size; node++) {
            if (processes[node] != null && processes[node].isAlive()) {
                running.add(node + 1);
            }
        }
        return running;
    }

    /** Kills node {@code id} (1..size) with {@code SIGKILL} and waits for it to be gone. */
    public synchronized void kill(int id) {
        Process process = processes[index(id)];
        if (process == null) {
            return;
        }
        process.destroyForcibly(); // SIGKILL on Linux: no shutdown hook, no flush
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        processes[index(id)] = null;
    }

    /** Starts node {@code id} again on its data directory and waits until it has registered. */
    public synchronized void restart(int id) {
        int node = index(id);
        if (processes[node] != null && processes[node].isAlive()) {
            throw new IllegalStateException("kafka node " + id + ": running (expected: killed first)");
        }
        launch(node);
        awaitReady(RECOVERY);
    }

    private int index(int id) {
        if (id < 1 || id > size) {
            throw new IllegalArgumentException("node: " + id + " (expected: 1.." + size + ")");
        }
        return id - 1;
    }

    /** Stops every node and deletes the data. */
    @Override
    public void close() {
        for (Process process : processes) {
            ServerProcesses.stop(process);
        }
        ServerProcesses.delete(dir);
    }

    @Override
    public String toString() {
        return "KafkaCluster{" + size + " nodes at " + bootstrapServers() + (fsync ? ", fsync" : "") + '}';
    }

    /** Kafka's own generator: base64 of random bytes would start with '-' one time in 64, read as an option. */
    static String newClusterId() {
        return Uuid.randomUuid().toString();
    }
}
