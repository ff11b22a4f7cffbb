package io.unitas.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.unitas.core.health.ProbeResult;
import io.unitas.testkit.Ports;
import io.unitas.testkit.RedisPair;

class RedisProbeTest {

    private final RedisPair redis = RedisPair.shared();

    private static ProbeResult probe(String target, ProbeConfig.Role role) {
        ProbeConfig config = new ProbeConfig(ProbeConfig.Kind.REDIS, target, role, Duration.ZERO, false,
                                             ProbeConfig.DEFAULT_STATUS, "", "");
        try (Probe probe = Probe.of(config)) {
            return probe.probe(Duration.ofSeconds(2));
        }
    }

    @Test
    void thePrimaryIsUpAsPrimaryWithItsReplica() {
        ProbeResult result = probe(redis.primary().uri(), ProbeConfig.Role.PRIMARY);

        assertThat(result.up()).as(result.reason()).isTrue();
        assertThat(result.details()).containsEntry("role", "primary").containsEntry("replicas", 1L);
    }

    @Test
    void theReplicaIsUpWithItsLinkAndOffsetDistance() {
        ProbeResult result = probe(redis.replica().uri(), ProbeConfig.Role.STANDBY);

        assertThat(result.up()).as(result.reason()).isTrue();
        assertThat(result.details()).containsEntry("role", "standby").containsEntry("master_link_status", "up")
                .containsKey("offset_distance");
    }

    @Test
    void aReplicaThatLostItsLinkIsDown() {
        int nowhere = Ports.free();
        redis.replica().execute(c -> c.replicaof("127.0.0.1", nowhere));
        try {
            ProbeResult result = probe(redis.replica().uri(), ProbeConfig.Role.STANDBY);

            assertThat(result.up()).isFalse();
            assertThat(result.reason()).startsWith("replication link to 127.0.0.1:" + nowhere + " is down")
                    .endsWith("(expected: up)");
        } finally {
            redis.replica().execute(c -> c.replicaof("127.0.0.1", redis.primary().port()));
        }
        ProbeResult back = Eventually.within(Duration.ofSeconds(10), ProbeResult::up,
                () -> probe(redis.replica().uri(), ProbeConfig.Role.STANDBY));
        assertThat(back.up()).as(back.reason()).isTrue();
    }

    @Test
    void aRefusedConnectionIsDownWithAClearReason() {
        ProbeResult result = probe("redis://127.0.0.1:" + Ports.free(), ProbeConfig.Role.ANY);

        assertThat(result.up()).isFalse();
        assertThat(result.reason()).matches("cannot connect to 127\\.0\\.0\\.1:\\d+: connection refused");
    }

    /** The driver's notices about its own thread pools, once per probe's resources, said nothing of the target. */
    @Test
    void aProbe_logsNothingOfTheDriversOwnPools() {
        java.util.logging.Logger lettuce = java.util.logging.Logger.getLogger("io.lettuce.core.resource");
        java.util.List<String> logged = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                logged.add(r.getLevel() + " " + r.getMessage());
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        lettuce.addHandler(handler);
        try {
            ProbeResult result = probe(redis.replica().uri(), ProbeConfig.Role.STANDBY);
            assertThat(result.up()).as(result.reason()).isTrue();
        } finally {
            lettuce.removeHandler(handler);
        }
        assertThat(logged).noneMatch(line -> line.contains("ThreadPoolSize"));
    }
}
