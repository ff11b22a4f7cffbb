package io.unitas.health;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;

import io.unitas.core.RegionHealth;
import io.unitas.core.health.ProbeResult;

/**
 * Probes Redis on a fresh connection: {@code PING}, {@code ROLE}, and on a replica {@code master_link_status}, the
 * distance between the primary's replication offset and the replica's (asking the primary named in the replica's
 * {@code INFO replication}) and the time since it last heard from its primary, which make its lag ({@link #lagMs}),
 * held to {@code max-lag}.
 */
final class RedisProbe implements Probe {

    private final ProbeConfig config;
    private final RedisURI uri;
    private ClientResources resources;

    RedisProbe(ProbeConfig config) {
        this.config = config;
        this.uri = Targets.redis(config.target());
    }

    @Override
    public synchronized ProbeResult probe(Duration timeout) {
        long start = Latency.start();
        Map<String, Object> seen = new LinkedHashMap<>();
        String address = uri.getHost() + ":" + uri.getPort();
        try {
            Map<String, String> info = ask(uri, timeout, c -> {
                c.ping();
                Map<String, String> fields = parse(c.info("replication"));
                fields.put("role", String.valueOf(c.role().get(0)));
                return fields;
            });
            String role = "master".equals(info.get("role")) ? "primary" : "standby";
            seen.put("role", role);
            if ("primary".equals(role)) {
                seen.put("replicas", Long.parseLong(info.getOrDefault("connected_slaves", "0")));
                if (config.role() == ProbeConfig.Role.STANDBY) {
                    return ProbeResult.down(Latency.since(start), "role primary (expected: standby)",
                                            RegionHealth.UNKNOWN_LAG, seen);
                }
                return ProbeResult.up(Latency.since(start), "primary", RegionHealth.UNKNOWN_LAG, seen);
            }
            String link = info.getOrDefault("master_link_status", "unknown");
            String primary = info.get("master_host") + ":" + info.get("master_port");
            seen.put("primary", primary);
            seen.put("master_link_status", link);
            java.util.OptionalLong distance = offsetDistance(info, timeout);
            distance.ifPresent(d -> seen.put("offset_distance", d));
            long lastIo = number(info.get("master_last_io_seconds_ago"));
            if (lastIo >= 0) {
                seen.put("master_last_io_seconds_ago", lastIo);
            }
            long lag = lagMs(link, distance, lastIo);
            seen.put("replication_lag_ms", lag);
            if (config.role() == ProbeConfig.Role.PRIMARY) {
                return ProbeResult.down(Latency.since(start), "replica of " + primary + " (expected: primary)",
                                        lag, seen);
            }
            if (!"up".equals(link)) {
                String downFor = info.containsKey("master_link_down_since_seconds")
                        ? " for " + info.get("master_link_down_since_seconds") + "s" : "";
                return ProbeResult.down(Latency.since(start), "replication link to " + primary + " is " + link
                                        + downFor + " (expected: up)", lag, seen);
            }
            long maxLagMs = config.maxLag().toMillis();
            if (maxLagMs > 0 && lag == RegionHealth.UNKNOWN_LAG) {
                return ProbeResult.down(Latency.since(start), "replication lag unknown: primary " + primary
                                        + " did not answer its offset (expected: <= " + maxLagMs + "ms)", lag, seen);
            }
            if (maxLagMs > 0 && lag > maxLagMs) {
                return ProbeResult.down(Latency.since(start), "replication lag " + lag + "ms: " + distance.getAsLong()
                                        + " bytes behind " + primary + ", nothing from it for " + lastIo + "s"
                                        + " (expected: <= " + maxLagMs + "ms)", lag, seen);
            }
            return ProbeResult.up(Latency.since(start), "replica, link up, lag " + lag + "ms", lag, seen);
        } catch (RuntimeException e) {
            return ProbeResult.down(Latency.since(start), reason(e, address, timeout), RegionHealth.UNKNOWN_LAG, seen);
        }
    }

    /**
     * The replica's lag: 0 when it holds all its primary has written; else, since Redis keeps no time of its offsets,
     * the time since it last heard from its primary (to the second), for what it misses was written after that;
     * unknown when the link is down or the primary cannot be asked. A primary pings its replicas every 10 s
     * ({@code repl-ping-replica-period}), so an idle link is not lag: only a distance makes the silence count.
     */
    static long lagMs(String link, java.util.OptionalLong distance, long lastIoSeconds) {
        if (!"up".equals(link) || distance.isEmpty()) {
            return RegionHealth.UNKNOWN_LAG;
        }
        if (distance.getAsLong() <= 0) {
            return 0;
        }
        return lastIoSeconds < 0 ? RegionHealth.UNKNOWN_LAG : lastIoSeconds * 1000;
    }

    private static long number(String field) {
        try {
            return field == null ? -1 : Long.parseLong(field);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The server's own refusal when there is one (WRONGPASS, NOAUTH, a database out of range), else the cause. */
    private static String reason(RuntimeException e, String address, Duration timeout) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof RedisCommandExecutionException) {
                return "cannot connect to " + address + ": " + ProbeFailure.firstLine(t);
            }
        }
        return ProbeFailure.reason(e, address, timeout);
    }

    /** The primary's offset minus the replica's, when the primary can be asked. */
    private java.util.OptionalLong offsetDistance(Map<String, String> replica, Duration timeout) {
        String own = replica.get("slave_repl_offset");
        if (own == null || replica.get("master_host") == null) {
            return java.util.OptionalLong.empty();
        }
        RedisURI primary = RedisURI.builder(uri).withHost(replica.get("master_host"))
                .withPort(Integer.parseInt(replica.get("master_port"))).build();
        try {
            String offset = ask(primary, timeout, c -> parse(c.info("replication")).get("master_repl_offset"));
            return offset == null ? java.util.OptionalLong.empty()
                                  : java.util.OptionalLong.of(Long.parseLong(offset) - Long.parseLong(own));
        } catch (RuntimeException e) {
            return java.util.OptionalLong.empty();
        }
    }

    private <T> T ask(RedisURI target, Duration timeout, java.util.function.Function<RedisCommands<String, String>, T> f) {
        if (resources == null) {
            // two of each, the driver's least: asked for one, it logs that it takes two, twice for every probe's start
            resources = DefaultClientResources.builder().ioThreadPoolSize(2).computationThreadPoolSize(2).build();
        }
        RedisURI timed = RedisURI.builder(target).withTimeout(timeout).build();
        RedisClient client = RedisClient.create(resources, timed);
        client.setOptions(ClientOptions.builder().autoReconnect(false)
                .socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
                .timeoutOptions(TimeoutOptions.enabled(timeout)).build());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return f.apply(connection.sync());
        } finally {
            client.shutdown(Duration.ZERO, Duration.ZERO);
        }
    }

    private static Map<String, String> parse(String info) {
        Map<String, String> fields = new HashMap<>();
        for (String line : info.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return fields;
    }

    @Override
    public synchronized void close() {
        if (resources != null) {
            resources.shutdown(0, 2, java.util.concurrent.TimeUnit.SECONDS);
            resources = null;
        }
    }
}
