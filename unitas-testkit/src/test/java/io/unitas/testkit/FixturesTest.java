package io.unitas.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FixturesTest {

    @Test
    void thePostgresStandbyIsInRecoveryAndReplaysThePrimarysWrites() {
        PostgresCluster pg = PostgresCluster.shared();
        pg.primary().execute("CREATE TABLE IF NOT EXISTS fixture_probe (v int)", "INSERT INTO fixture_probe VALUES (42)");

        assertThat(pg.primary().queryOne("SELECT pg_is_in_recovery()")).isEqualTo("f");
        assertThat(pg.standby().queryOne("SELECT pg_is_in_recovery()")).isEqualTo("t");
        String replayed = ServerProcesses.await("replay", java.time.Duration.ofSeconds(10), () -> {
            String v = pg.standby().queryOne("SELECT max(v) FROM fixture_probe");
            if (v == null) {
                throw new IllegalStateException("not replayed yet");
            }
            return v;
        });
        assertThat(replayed).isEqualTo("42");
    }

    @Test
    void mariaDbAnswersAsItsAdministrator() {
        assertThat(MariaDbServer.shared().queryOne("SELECT @@read_only")).isEqualTo("0");
    }

    @Test
    void theRedisReplicaFollowsItsPrimary() {
        RedisPair redis = RedisPair.shared();

        String replication = redis.replica().execute(c -> c.info("replication"));

        assertThat(replication).contains("role:slave");
    }
}
