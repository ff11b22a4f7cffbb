package io.unitas.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

/**
 * A MariaDB server of its own on a free port, with its own data directory and socket, initialised by
 * {@code mariadb-install-db}. The user {@link #USER} (password {@link #PASSWORD}) may do anything, from
 * 127.0.0.1; the database {@code unitas} exists.
 */
public final class MariaDbServer implements SqlServer, AutoCloseable {

    /** The administrator the fixture creates. */
    public static final String USER = "unitas";
    /** The administrator's password. */
    public static final String PASSWORD = "unitas";

    private static final Duration SLOW = Duration.ofSeconds(90);
    private static final Shared<MariaDbServer> SHARED = new Shared<>(MariaDbServer::start, MariaDbServer::close);

    private final Path base;
    private final int port;
    private Process process;

    private MariaDbServer() {
        this.base = ServerProcesses.tempDir("unitas-mariadb-", null);
        this.port = Ports.free();
    }

    /** The server shared by every test of this JVM, started on first use and stopped when the JVM exits. */
    public static MariaDbServer shared() {
        return SHARED.get();
    }

    /** Starts a new server; the caller closes it. */
    public static MariaDbServer start() {
        return Shared.booted(new MariaDbServer(), MariaDbServer::boot);
    }

    private void boot() {
        Path data = base.resolve("data");
        ServerProcesses.run(SLOW, List.of(binary("mariadb-install-db"), "--no-defaults", "--user=root",
                "--datadir=" + data, "--auth-root-authentication-method=normal", "--skip-test-db"));
        Path init = base.resolve("init.sql");
        try {
            Files.writeString(init, String.join("\n",
                    "CREATE USER IF NOT EXISTS '" + USER + "'@'%' IDENTIFIED BY '" + PASSWORD + "';",
                    "GRANT ALL PRIVILEGES ON *.* TO '" + USER + "'@'%' WITH GRANT OPTION;",
                    "CREATE DATABASE IF NOT EXISTS unitas;", ""));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        process = ServerProcesses.start(List.of(binary("mariadbd"), "--no-defaults", "--user=root",
                "--datadir=" + data, "--port=" + port, "--bind-address=127.0.0.1",
                "--socket=" + base.resolve("mysqld.sock"), "--pid-file=" + base.resolve("mysqld.pid"),
                "--skip-name-resolve", "--init-file=" + init, "--server-id=1",
                "--innodb-buffer-pool-size=16M", "--innodb-log-file-size=8M", "--skip-innodb-doublewrite",
                "--log-error=" + base.resolve("error.log")), base.resolve("out.log"));
        ServerProcesses.await("mariadb on port " + port, SLOW, () -> {
            if (!process.isAlive()) {
                throw new IllegalStateException("mariadbd exited " + process.exitValue() + ": see " + base);
            }
            DriverManager.getConnection(jdbcUrl(), admin()).close();
            return null;
        });
    }

    private static String binary(String name) {
        for (String dir : List.of("/usr/sbin", "/usr/bin")) {
            if (Files.isExecutable(Path.of(dir, name))) {
                return dir + "/" + name;
            }
        }
        return name;
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public String jdbcUrl() {
        return "jdbc:mariadb://127.0.0.1:" + port + "/unitas";
    }

    @Override
    public Properties admin() {
        Properties p = new Properties();
        p.setProperty("user", USER);
        p.setProperty("password", PASSWORD);
        return p;
    }

    @Override
    public String uri() {
        return "mysql://" + USER + ":" + PASSWORD + "@127.0.0.1:" + port + "/unitas";
    }

    /** Stops the server and deletes its data. */
    @Override
    public void close() {
        ServerProcesses.stop(process);
        ServerProcesses.delete(base);
    }
}
