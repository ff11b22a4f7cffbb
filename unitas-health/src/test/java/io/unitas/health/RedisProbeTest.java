package io.unitas.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.OptionalLong;

import org.junit.jupiter.api.Test;

import io.unitas.core.RegionHealth;
import io.unitas.core.health.ProbeResult;
import io.unitas.testkit.Ports;
import io.unitas.testkit.RedisPair;

class RedisProbeTest {

    private final RedisPair redis = RedisPair.shared();

    private static ProbeResult probe(String target, ProbeConfig.Role role) {
        return probe(target, role, Duration.ZERO);
    }

    private static ProbeResult probe(String target, ProbeConfig.Role role, Duration maxLag) {
        ProbeConfig config = new ProbeConfig(ProbeConfig.Kind.REDIS, target, role, maxLag, false,
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

    /**
     * A link that hangs without closing stays {@code up} in the replica's eyes for its {@code repl-timeout} (60 s)
     * while writes to the primary do not reach it: {@code max-lag} turns that into a failure that says why, and the
     * replica is up again once the link moves.
     */
    @Test
    void aReplicaWhoseLinkStalls_whileItsPrimaryIsWritten_isDownForItsLag_andUpWhenItCatchesUp() throws Exception {
        try (RedisPair pair = RedisPair.start();
             StallableLink link = new StallableLink(pair.primary().port())) {
            pair.replica().execute(c -> c.replicaof("127.0.0.1", link.port()));
            String replica = pair.replica().uri();
            ProbeResult linked = Eventually.within(Duration.ofSeconds(20),
                    r -> r.up() && ("127.0.0.1:" + link.port()).equals(r.details().get("primary")),
                    () -> probe(replica, ProbeConfig.Role.STANDBY, Duration.ofSeconds(1)));
            assertThat(linked.up()).as(linked.reason()).isTrue();

            link.stall();
            pair.primary().execute(c -> c.set("written-while-stalled", "x".repeat(1_000)));
            ProbeResult behind = Eventually.within(Duration.ofSeconds(20), r -> !r.up(),
                    () -> probe(replica, ProbeConfig.Role.STANDBY, Duration.ofSeconds(1)));

            assertThat(behind.up()).as("a replica that hears nothing while its primary is written").isFalse();
            assertThat(behind.reason()).matches("replication lag \\d+ms: \\d+ bytes behind 127\\.0\\.0\\.1:"
                    + link.port() + ", nothing from it for \\d+s \\(expected: <= 1000ms\\)");
            assertThat(behind.details()).containsEntry("master_link_status", "up");
            assertThat((Long) behind.details().get("offset_distance")).isPositive();
            assertThat(behind.replicationLagMs()).isGreaterThan(1000);
            assertThat(probe(replica, ProbeConfig.Role.STANDBY, Duration.ZERO).up())
                    .as("the same replica without max-lag").isTrue();

            link.resume();
            ProbeResult caughtUp = Eventually.within(Duration.ofSeconds(20), ProbeResult::up,
                    () -> probe(replica, ProbeConfig.Role.STANDBY, Duration.ofSeconds(1)));
            assertThat(caughtUp.up()).as(caughtUp.reason()).isTrue();
            assertThat(caughtUp.replicationLagMs()).isZero();
            assertThat(pair.replica().<String>execute(c -> c.get("written-while-stalled"))).hasSize(1_000);
        }
    }

    @Test
    void theLagIsZeroCaughtUp_theSilenceWhenBehind_andUnknownWithoutALinkOrAnOffset() {
        assertThat(RedisProbe.lagMs("up", OptionalLong.of(0), 9)).isZero();
        assertThat(RedisProbe.lagMs("up", OptionalLong.of(120), 0)).isZero();
        assertThat(RedisProbe.lagMs("up", OptionalLong.of(120), 3)).isEqualTo(3_000);
        assertThat(RedisProbe.lagMs("down", OptionalLong.of(120), 3)).isEqualTo(RegionHealth.UNKNOWN_LAG);
        assertThat(RedisProbe.lagMs("up", OptionalLong.empty(), 3)).isEqualTo(RegionHealth.UNKNOWN_LAG);
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
