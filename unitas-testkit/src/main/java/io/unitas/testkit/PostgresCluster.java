package io.unitas.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;

/**
 * A PostgreSQL primary with a streaming hot standby, each its own cluster on a free port, started with the
 * installed server's {@code initdb}, {@code pg_ctl} and {@code pg_basebackup}, found on the PATH or under
 * {@code /usr/lib/postgresql/*}{@code /bin} (as user {@code postgres} when
 * running as root). Trust authentication for {@code postgres}; the role {@link #PASSWORD_USER} must give the
 * password {@link #PASSWORD}, so tests can see a wrong one refused.
 */
public final class PostgresCluster implements AutoCloseable {

    /** A role that authenticates with a password (scram-sha-256) over TCP. */
    public static final String PASSWORD_USER = "unitas_pw";
    /** The password of {@link #PASSWORD_USER}. */
    public static final String PASSWORD = "s3cret";

    private static final Duration SLOW = Duration.ofSeconds(90);
    private static final Shared<PostgresCluster> SHARED = new Shared<>(PostgresCluster::start, PostgresCluster::close);

    private final Path bin;
    private final Path base;
    private final Node primary;
    private final Node standby;

    private PostgresCluster() {
        this.bin = PostgresInstall.binDir();
        this.base = ServerProcesses.tempDir("unitas-pg-", "postgres");
        this.primary = new Node(base.resolve("primary"), Ports.free());
        this.standby = new Node(base.resolve("standby"), Ports.free());
    }

    /** The cluster shared by every test of this JVM, started on first use and stopped when the JVM exits. */
    public static PostgresCluster shared() {
        return SHARED.get();
    }

    /** Starts a new primary and its streaming standby; the caller closes it. */
    public static PostgresCluster start() {
        return Shared.booted(new PostgresCluster(), PostgresCluster::boot);
    }

    private void boot() {
        ServerProcesses.run(SLOW, ServerProcesses.as("postgres", bin.resolve("initdb").toString(),
                "-D", primary.data.toString(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C",
                "--no-sync"));
        append(primary.data.resolve("postgresql.conf"), String.join("\n",
                "listen_addresses = '127.0.0.1'",
                "unix_socket_directories = '" + base + "'",
                "fsync = off", "synchronous_commit = on", "full_page_writes = off",
                "wal_level = replica", "max_wal_senders = 5", "hot_standby = on",
                "shared_buffers = 16MB", "max_connections = 40",
                "wal_receiver_status_interval = 1s", "hot_standby_feedback = on",
                "port = " + primary.port, ""));
        Path hba = primary.data.resolve("pg_hba.conf");
        try {
            String rules = Files.readString(hba);
            Files.writeString(hba, "host all " + PASSWORD_USER + " 127.0.0.1/32 scram-sha-256\n" + rules);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        primary.start();
        primary.execute("CREATE ROLE " + PASSWORD_USER + " LOGIN PASSWORD '" + PASSWORD + "'");
        ServerProcesses.run(SLOW, ServerProcesses.as("postgres", bin.resolve("pg_basebackup").toString(),
                "-h", "127.0.0.1", "-p", String.valueOf(primary.port), "-U", "postgres",
                "-D", standby.data.toString(), "-R", "-X", "stream", "--no-sync"));
        append(standby.data.resolve("postgresql.conf"), "port = " + standby.port + "\n");
        standby.start();
        ServerProcesses.await("standby streaming", SLOW, () -> {
            if (!"streaming".equals(primary.queryOne("SELECT state FROM pg_stat_replication"))) {
                throw new IllegalStateException("standby not streaming yet");
            }
            return null;
        });
    }

    /** The primary: read-write, streaming its WAL to the standby. */
    public SqlServer primary() {
        return primary;
    }

    /** The hot standby: read-only, replaying the primary's WAL. */
    public SqlServer standby() {
        return standby;
    }

    /** Stops both servers and deletes their data. */
    @Override
    public void close() {
        for (Node node : List.of(standby, primary)) {
            node.stop();
        }
        ServerProcesses.delete(base);
    }

    private static void append(Path file, String text) {
        try {
            Files.writeString(file, text, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One server of the cluster. */
    private final class Node implements PostgresAddress {
        private final Path data;
        private final int port;
        private boolean started;

        Node(Path data, int port) {
            this.data = data;
            this.port = port;
        }

        void start() {
            ServerProcesses.run(SLOW, ServerProcesses.as("postgres", bin.resolve("pg_ctl").toString(),
                    "-D", data.toString(), "-l", data + ".log", "-w", "-t", "60", "start"));
            started = true;
        }

        void stop() {
            if (started) {
                started = false;
                try {
                    ServerProcesses.run(SLOW, ServerProcesses.as("postgres", bin.resolve("pg_ctl").toString(),
                            "-D", data.toString(), "-m", "immediate", "-w", "stop"));
                } catch (RuntimeException e) {
                    // Stopping is best effort: the data directory is deleted next either way.
                }
            }
        }

        @Override
        public int port() {
            return port;
        }
    }
}
