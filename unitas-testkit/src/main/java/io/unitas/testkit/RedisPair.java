package io.unitas.testkit;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;

/**
 * A Redis primary with a replica, each a {@code redis-server} of its own on a free port, without persistence
 * ({@code --save "" --appendonly no}).
 */
public final class RedisPair implements AutoCloseable {

    private static final Duration SLOW = Duration.ofSeconds(30);
    private static final Shared<RedisPair> SHARED = new Shared<>(RedisPair::start, RedisPair::close);

    private final Path base;
    private final ClientResources resources = DefaultClientResources.create();
    private final Node primary;
    private final Node replica;

    private RedisPair() {
        this.base = ServerProcesses.tempDir("unitas-redis-", null);
        this.primary = new Node(Ports.free());
        this.replica = new Node(Ports.free());
    }

    /** The pair shared by every test of this JVM, started on first use and stopped when the JVM exits. */
    public static RedisPair shared() {
        return SHARED.get();
    }

    /** Starts a new primary and replica; the caller closes them. */
    public static RedisPair start() {
        return Shared.booted(new RedisPair(), RedisPair::boot);
    }

    private void boot() {
        primary.start(List.of());
        replica.start(List.of("--replicaof", "127.0.0.1", String.valueOf(primary.port)));
        ServerProcesses.await("redis replica link", SLOW, () -> {
            if (!replica.execute(c -> c.info("replication")).contains("master_link_status:up")) {
                throw new IllegalStateException("replica link not up yet");
            }
            return null;
        });
    }

    /** The primary. */
    public Node primary() {
        return primary;
    }

    /** The replica of {@link #primary()}. */
    public Node replica() {
        return replica;
    }

    /** Stops both servers and deletes their directory. */
    @Override
    public void close() {
        ServerProcesses.stop(replica.process);
        ServerProcesses.stop(primary.process);
        ServerProcesses.delete(base);
        resources.shutdown(0, 1, TimeUnit.SECONDS);
    }

    /** One redis-server of the pair. */
    public final class Node {
        private final int port;
        private Process process;

        private Node(int port) {
            this.port = port;
        }

        private void start(List<String> extra) {
            List<String> command = new java.util.ArrayList<>(List.of("redis-server", "--port", String.valueOf(port),
                    "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no",
                    "--dir", base.toString(), "--dbfilename", "dump-" + port + ".rdb",
                    "--repl-diskless-sync-delay", "0"));
            command.addAll(extra);
            process = ServerProcesses.start(command, base.resolve("redis-" + port + ".log"));
            ServerProcesses.await("redis on port " + port, SLOW, () -> execute(RedisCommands::ping));
        }

        /** The TCP port on 127.0.0.1. */
        public int port() {
            return port;
        }

        /** {@code redis://127.0.0.1:port}. */
        public String uri() {
            return "redis://127.0.0.1:" + port;
        }

        /** Runs {@code commands} on a fresh connection and returns what they return. */
        public <T> T execute(Function<RedisCommands<String, String>, T> commands) {
            RedisClient client = RedisClient.create(resources, uri());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                return commands.apply(connection.sync());
            } finally {
                client.shutdown(Duration.ZERO, Duration.ZERO);
            }
        }
    }
}
