package io.unitas.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.unitas.core.health.ProbeResult;
import io.unitas.testkit.MariaDbServer;
import io.unitas.testkit.Ports;

class MysqlProbeTest {

    private final MariaDbServer db = MariaDbServer.shared();

    private static ProbeResult probe(String target, ProbeConfig.Role role) {
        ProbeConfig config = new ProbeConfig(ProbeConfig.Kind.MYSQL, target, role, Duration.ofSeconds(5), false,
                                             ProbeConfig.DEFAULT_STATUS, "", "");
        try (Probe probe = Probe.of(config)) {
            return probe.probe(Duration.ofSeconds(2));
        }
    }

    @Test
    void aWritableServerIsUpAsPrimary() {
        ProbeResult result = probe(db.uri(), ProbeConfig.Role.PRIMARY);

        assertThat(result.up()).as(result.reason()).isTrue();
        assertThat(result.details()).containsEntry("role", "primary").containsEntry("read_only", false)
                .containsEntry("writable", true);
    }

    @Test
    void readOnlyIsDownNamingTheVariable() {
        db.execute("SET GLOBAL read_only = ON");
        try {
            ProbeResult result = probe(db.uri(), ProbeConfig.Role.PRIMARY);

            assertThat(result.up()).isFalse();
            assertThat(result.reason()).isEqualTo("read-only (read_only=ON)");
        } finally {
            db.execute("SET GLOBAL read_only = OFF");
        }
    }

    @Test
    void aReplicaWhoseLagIsNullHasBrokenReplicationNotZeroLag() {
        int nowhere = Ports.free();
        db.execute("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=" + nowhere + ", MASTER_USER='x', "
                   + "MASTER_PASSWORD='x', MASTER_CONNECT_RETRY=1", "START SLAVE");
        try {
            ProbeResult result = probe(db.uri(), ProbeConfig.Role.STANDBY);

            assertThat(result.up()).isFalse();
            assertThat(result.reason()).startsWith("replication broken: Seconds_Behind_Source is NULL (IO thread: ");
            assertThat(result.replicationLagMs()).isEqualTo(-1);
            assertThat(result.details()).containsEntry("role", "standby");
        } finally {
            db.execute("STOP SLAVE", "RESET SLAVE ALL");
        }
        assertThat(probe(db.uri(), ProbeConfig.Role.PRIMARY).up()).isTrue();
    }

    @Test
    void aWrongPasswordIsDownSayingAccessDenied() {
        ProbeResult result = probe("mysql://" + MariaDbServer.USER + ":wrong@127.0.0.1:" + db.port() + "/unitas",
                                   ProbeConfig.Role.ANY);

        assertThat(result.up()).isFalse();
        assertThat(result.reason()).contains("Access denied for user 'unitas'");
    }

    @Test
    void aRefusedConnectionIsDownWithAClearReason() {
        ProbeResult result = probe("mysql://u:p@127.0.0.1:" + Ports.free() + "/x",
                                   ProbeConfig.Role.ANY);

        assertThat(result.reason()).matches("cannot connect to 127\\.0\\.0\\.1:\\d+: connection refused");
    }
}
