package io.unitas.data.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The PostgreSQL the store contract runs against: {@code UNITAS_TEST_POSTGRES_URL} when set; else the server at
 * 127.0.0.1:5432 (trust authentication, user {@code postgres}, database {@code test}) when it answers; else a cluster
 * of its own on a free port, made with the installed {@code initdb} and {@code pg_ctl} (as user {@code postgres}
 * when running as root) and stopped when the JVM exits.
 */
final class PostgresServer {

    private static final String MACHINE = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    private static String url;

    private PostgresServer() {}

    /** The JDBC URL of a database the tests may create schemas in. */
    static synchronized String url() {
        if (url == null) {
            String configured = System.getenv("UNITAS_TEST_POSTGRES_URL");
            url = configured != null ? configured : answers(MACHINE) ? MACHINE : startOwn();
        }
        return url;
    }

    /** Runs one statement on the database at {@code url}. */
    static void execute(String url, String sql) {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage() + " (at " + url + ")", e);
        }
    }

    private static boolean answers(String url) {
        try (Connection c = DriverManager.getConnection(url + "&connectTimeout=2")) {
            return c.isValid(2);
        } catch (SQLException e) {
            return false;
        }
    }

    private static String startOwn() {
        try {
            Path bin;
            try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
                bin = versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("initdb")))
                        .max(Comparator.comparing(Path::toString))
                        .orElseThrow(() -> new IllegalStateException(
                                "/usr/lib/postgresql/*/bin/initdb: none (expected: PostgreSQL installed,"
                                + " see .ci/install-servers)"));
            }
            Path dir = Files.createTempDirectory("unitas-data-pg-");
            boolean root = "root".equals(System.getProperty("user.name"));
            if (root) {
                run(List.of("chown", "postgres", dir.toString()));
            }
            int port;
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = socket.getLocalPort();
            }
            String data = dir.resolve("data").toString();
            run(as(root, bin.resolve("initdb").toString(), "-D", data, "-A", "trust", "-U", "postgres", "--no-sync"));
            run(as(root, bin.resolve("pg_ctl").toString(), "-D", data, "-w", "-l", dir.resolve("log").toString(),
                   "-o", "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -c fsync=off", "start"));
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                run(as(root, bin.resolve("pg_ctl").toString(), "-D", data, "-m", "immediate", "stop"));
                delete(dir);
            }));
            execute("jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres", "CREATE DATABASE test");
            return "jdbc:postgresql://127.0.0.1:" + port + "/test?user=postgres";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            // a leftover temporary directory is harmless
        }
    }

    // Servers refuse to run as root.
    private static List<String> as(boolean root, String... command) {
        List<String> full = new ArrayList<>(root ? List.of("runuser", "-u", "postgres", "--") : List.of());
        full.addAll(List.of(command));
        return full;
    }

    private static void run(List<String> command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(2, TimeUnit.MINUTES) || process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + ": failed\n" + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(String.join(" ", command) + ": interrupted", e);
        }
    }
}
