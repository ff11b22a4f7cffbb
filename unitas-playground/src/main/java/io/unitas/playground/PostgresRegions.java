package io.unitas.playground;

import io.unitas.core.Region;
import io.unitas.playground.store.RegionalStore;
import io.unitas.testkit.PostgresServer;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.h2.jdbcx.JdbcConnectionPool;

/**
 * One real PostgreSQL server per region ({@code --store postgres}), each with its store's connection pool, and the
 * faults a database has: turned read-only on the server, or stopped as a crash stops it.
 */
final class PostgresRegions implements AutoCloseable {

    /** Connections per region's pool: the shops, the home-read server, the health checks and the replicator. */
    private static final int POOL = 20;
    /** How long a configuration reload may take to reach new sessions. */
    private static final Duration RELOAD_TIMEOUT = Duration.ofSeconds(10);

    private final Map<Region, PostgresServer> servers = new LinkedHashMap<>();
    private final Map<Region, JdbcConnectionPool> pools = new LinkedHashMap<>();

    /** Starts every region's server side by side; when one fails, the others are stopped and its error thrown. */
    static PostgresRegions start(Layout layout) {
        PostgresRegions regions = new PostgresRegions();
        Map<Region, CompletableFuture<PostgresServer>> starting = new LinkedHashMap<>();
        layout.regions().forEach(r -> starting.put(r, CompletableFuture.supplyAsync(
                () -> PostgresServer.start(layout.databasePort(r)))));
        RuntimeException failure = null;
        for (Map.Entry<Region, CompletableFuture<PostgresServer>> e : starting.entrySet()) {
            try {
                regions.servers.put(e.getKey(), e.getValue().join());
            } catch (CompletionException ce) {
                if (failure == null) {
                    failure = ce.getCause() instanceof RuntimeException re ? re : ce;
                }
            }
        }
        if (failure != null) {
            regions.close();
            throw failure;
        }
        return regions;
    }

    /** A store on {@code region}'s server, through a pool that renews the connections a crash of the server broke. */
    RegionalStore store(Region region, Clock clock) {
        JdbcConnectionPool pool = PostgresPool.create(server(region).jdbcUrl(), "unitas-playground-" + region.id(),
                                                      POOL);
        pools.put(region, pool);
        return RegionalStore.jdbc(region, pool, clock);
    }

    /**
     * Turns {@code region}'s server read-only or back, as the seed's incident did: {@code default_transaction_read_only}
     * in the server's configuration, reloaded, so the sessions already open refuse writes too.
     */
    void readOnly(Region region, boolean readOnly) {
        // The administrator's own session writes the setting whatever the server's default is now.
        server(region).execute("SET default_transaction_read_only = off",
                               readOnly ? "ALTER SYSTEM SET default_transaction_read_only = on"
                                        : "ALTER SYSTEM RESET default_transaction_read_only",
                               "SELECT pg_reload_conf()");
        awaitReloaded(server(region), readOnly ? "on" : "off");
    }

    /**
     * Waits until a new session sees the setting: the postmaster has re-read its configuration then, and has already
     * signalled every open session, each of which applies it before its next statement.
     */
    private static void awaitReloaded(PostgresServer server, String expected) {
        long deadline = System.nanoTime() + RELOAD_TIMEOUT.toNanos();
        while (!expected.equals(server.queryOne("SHOW default_transaction_read_only"))) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(server.uri() + ": default_transaction_read_only not " + expected
                                                + " after a reload and " + RELOAD_TIMEOUT.toMillis() + " ms");
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(server.uri() + ": interrupted while reloading", e);
            }
        }
    }

    /** Stops {@code region}'s server as a crash does: every connection cut. */
    void kill(Region region) {
        server(region).kill();
    }

    /** Starts {@code region}'s server again on its data. */
    void restart(Region region) {
        server(region).restart();
    }

    /** Creates the database {@code name} on {@code region}'s server. */
    void createDatabase(Region region, String name) {
        server(region).execute("CREATE DATABASE " + name);
    }

    /** Where {@code region}'s server listens, as a person writes it ({@code postgresql://postgres@127.0.0.1:7016/…}). */
    String uri(Region region, String database) {
        return "postgresql://postgres@127.0.0.1:" + server(region).port() + "/" + database;
    }

    /**
     * {@code kill -9} of {@code region}'s postmaster and every backend it started, as a crashed machine leaves it
     * (no shutdown, a stale {@code postmaster.pid}); {@link #restart} recovers it.
     */
    void killNine(Region region) {
        killNine(server(region));
    }

    /** {@code kill -9} of {@code server}'s postmaster and its backends, as {@link #killNine(Region)} of a region's. */
    static void killNine(PostgresServer server) {
        ProcessHandle.of(postmaster(server)).ifPresent(pm -> {
            pm.descendants().forEach(ProcessHandle::destroyForcibly);
            pm.destroyForcibly();
            pm.onExit().orTimeout(10, java.util.concurrent.TimeUnit.SECONDS).exceptionally(e -> pm).join();
        });
        try {
            server.kill(); // marks it stopped; pg_ctl finds nothing left to stop
        } catch (RuntimeException e) {
            // expected: the server is already gone
        }
    }

    /** The process ids of {@code region}'s postmaster and its backends while it runs; empty when it does not. */
    java.util.Set<Long> pids(Region region) {
        java.util.Set<Long> pids = new java.util.LinkedHashSet<>();
        long pm = postmaster(server(region));
        ProcessHandle.of(pm).filter(ProcessHandle::isAlive).ifPresent(h -> {
            pids.add(h.pid());
            h.descendants().forEach(d -> pids.add(d.pid()));
        });
        return pids;
    }

    /** The postmaster's pid from the first line of its {@code postmaster.pid}, or -1 when the server is down. */
    private static long postmaster(PostgresServer server) {
        java.nio.file.Path pidFile = server.log().resolveSibling("data").resolve("postmaster.pid");
        try {
            return Long.parseLong(java.nio.file.Files.readAllLines(pidFile).get(0).trim());
        } catch (java.io.IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The regions' servers, for {@link Playground#describe}. */
    List<String> describe() {
        return servers.entrySet().stream().map(e -> e.getKey().id() + " " + e.getValue().uri()).toList();
    }

    private PostgresServer server(Region region) {
        PostgresServer s = servers.get(region);
        if (s == null) {
            throw new IllegalArgumentException("region: " + region + " (expected: one of " + servers.keySet() + ")");
        }
        return s;
    }

    /** Closes the pools, stops the servers and deletes their data. */
    @Override
    public void close() {
        pools.values().forEach(JdbcConnectionPool::dispose);
        CompletableFuture.allOf(servers.values().stream().map(s -> CompletableFuture.runAsync(s::close))
                                       .toArray(CompletableFuture[]::new)).join();
    }
}
