package io.unitas.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

/**
 * One PostgreSQL server of its own (a fresh cluster in a temporary directory, on a port of the caller's choosing),
 * started with the installed server's {@code initdb} and {@code pg_ctl}, found on the PATH or under
 * {@code /usr/lib/postgresql/*}{@code /bin} (as user {@code postgres} when running as root). It can be stopped as a
 * crash stops it and started again on the same data and port, which is how drills take a region's database away.
 * Trust authentication for {@code postgres} on 127.0.0.1; tuned for tests (no fsync, but every acknowledged commit
 * survives a kill of the server).
 */
public final class PostgresServer implements PostgresAddress, AutoCloseable {

    private static final Duration SLOW = Duration.ofSeconds(90);

    private final Path bin;
    private final Path base;
    private final Path data;
    private final int port;
    private boolean running;

    private PostgresServer(Path bin, int port) {
        this.bin = bin;
        this.port = port;
        this.base = ServerProcesses.tempDir("unitas-pg-", "postgres");
        this.data = base.resolve("data");
    }

    /**
     * Creates and starts a server on {@code port} of 127.0.0.1. Throws {@link IllegalStateException} with one line
     * naming what to install when no PostgreSQL server is installed, or with the server's output when it fails.
     */
    public static PostgresServer start(int port) {
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException("port: " + port + " (expected: 1..65535)");
        }
        PostgresServer server = Shared.booted(new PostgresServer(PostgresInstall.binDir(), port), PostgresServer::boot);
        ServerProcesses.onExit(server::close); // a process that dies without closing it leaves no server behind
        return server;
    }

    /** Whether a PostgreSQL server is installed where {@link #start} looks; empty, or the one-line error. */
    public static String missing() {
        try {
            PostgresInstall.binDir();
            return "";
        } catch (IllegalStateException e) {
            return e.getMessage();
        }
    }

    private void boot() {
        ServerProcesses.run(SLOW, ServerProcesses.as("postgres", bin.resolve("initdb").toString(),
                "-D", data.toString(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"));
        try {
            Files.writeString(data.resolve("postgresql.conf"), String.join("\n",
                    "listen_addresses = '127.0.0.1'",
                    "unix_socket_directories = '" + base + "'",
                    // A commit is written to the operating system before it is acknowledged, so a kill of the
                    // server (a drill's region-down) loses nothing acknowledged; without fsync a crash of the machine
                    // could, which no test does.
                    "fsync = off", "synchronous_commit = on", "full_page_writes = off",
                    "shared_buffers = 16MB", "max_connections = 60",
                    "port = " + port, ""), StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        restart();
    }

    /** Starts the server again on its data and port, after {@link #kill}; does nothing while it runs. */
    public synchronized void restart() {
        if (running) {
            return;
        }
        ServerProcesses.run(SLOW, ServerProcesses.as("postgres", bin.resolve("pg_ctl").toString(),
                "-D", data.toString(), "-l", base.resolve("server.log").toString(), "-w", "-t", "60", "start"));
        running = true;
    }

    /**
     * Stops the server as a crash would ({@code pg_ctl stop -m immediate}: every connection cut, no checkpoint);
     * {@link #restart} recovers it.
     */
    public synchronized void kill() {
        if (!running) {
            return;
        }
        running = false;
        ServerProcesses.run(SLOW, ServerProcesses.as("postgres", bin.resolve("pg_ctl").toString(),
                "-D", data.toString(), "-m", "immediate", "-w", "stop"));
    }

    /** Whether the server runs (not {@link #kill killed}). */
    public synchronized boolean running() {
        return running;
    }

    /** The server's log file. */
    public Path log() {
        return base.resolve("server.log");
    }

    /** Stops the server and deletes its data. */
    @Override
    public synchronized void close() {
        try {
            kill();
        } catch (RuntimeException e) {
            // Stopping is best effort: the data directory is deleted next either way.
        }
        ServerProcesses.delete(base);
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public String toString() {
        return "PostgresServer{" + uri() + (running ? "" : ", stopped") + "}";
    }
}
