package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.util.UUID;

import io.unitas.spring.replicated.ReplicatedWalletApp.Wallet;
import io.unitas.spring.replicated.ReplicatedWalletApp.Wallets;
import io.unitas.testkit.KafkaCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The same wallet service replicated over a real Kafka broker ({@code unitas.replication.transport: kafka}), each
 * region with its own PostgreSQL database, as separate processes would be: a deposit's change reaches the other
 * region through its topic, a rolled-back one never does, and a region restarted reads on from the offsets it stored
 * with its data without applying anything twice.
 */
class KafkaReplicationTest {

    private static final String PREFIX = "t" + UUID.randomUUID().toString().substring(0, 8) + ".";
    private static String euDb;
    private static String usDb;
    private static ConfigurableApplicationContext eu;
    private static ConfigurableApplicationContext us;

    @BeforeAll
    static void startBothRegions() {
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        euDb = "kafka_eu_" + suffix;
        usDb = "kafka_us_" + suffix;
        ReplicationTest.PG.execute("CREATE DATABASE " + euDb, "CREATE DATABASE " + usDb);
        us = region("us", usDb);
        eu = region("eu", euDb);
    }

    static ConfigurableApplicationContext region(String region, String db) {
        return ReplicationTest.region(region, db, "--unitas.replication.transport=kafka",
                                      "--unitas.replication.kafka.bootstrap-servers="
                                      + KafkaCluster.shared().bootstrapServers(),
                                      "--unitas.replication.kafka.topic-prefix=" + PREFIX,
                                      "--unitas.replication.kafka.partitions=2");
    }

    @AfterAll
    static void stop() {
        for (ConfigurableApplicationContext region : new ConfigurableApplicationContext[] {eu, us}) {
            if (region != null) {
                region.close();
            }
        }
        ReplicationTest.PG.execute("DROP DATABASE IF EXISTS " + euDb + " WITH (FORCE)",
                                   "DROP DATABASE IF EXISTS " + usDb + " WITH (FORCE)");
    }

    @Test
    void depositsInUs_reachEuThroughKafka_inOrder_andARollbackShipsNothing() {
        deposit(us, "90", 5);
        assertThatThrownBy(() -> deposit(us, "90", -3)).isInstanceOf(IllegalArgumentException.class);
        for (int i = 0; i < 10; i++) {
            deposit(us, "90", 1);
        }

        await().atMost(ReplicationTest.WAIT).untilAsserted(() -> assertThat(wallet(eu, "90")).isEqualTo("15 v11"));
        assertThat(applied("90")).isEqualTo("1,2,3,4,5,6,7,8,9,10,11");
        await().atMost(ReplicationTest.WAIT).untilAsserted(() -> assertThat(health(us).getStatus())
                .isEqualTo(Status.UP));
    }

    @Test
    void aRestartedRegion_readsOnFromItsOffsets_applyingNothingTwice() {
        deposit(us, "91", 1);
        await().atMost(ReplicationTest.WAIT).untilAsserted(() -> assertThat(wallet(eu, "91")).isEqualTo("1 v1"));

        eu.close();
        for (int i = 0; i < 4; i++) {
            deposit(us, "91", 1);
        }
        eu = region("eu", euDb);

        await().atMost(ReplicationTest.WAIT).untilAsserted(() -> assertThat(wallet(eu, "91")).isEqualTo("5 v5"));
        assertThat(applied("91")).isEqualTo("1,2,3,4,5");
        await().atMost(ReplicationTest.WAIT).untilAsserted(() -> assertThat(health(eu).getStatus())
                .isEqualTo(Status.UP));
    }

    private static String applied(String user) {
        return ReplicationTest.query(euDb, "SELECT string_agg(version::text, ',' ORDER BY n) FROM wallet_applied"
                                           + " WHERE user_id = '" + user + "'");
    }

    private static Wallet deposit(ConfigurableApplicationContext region, String user, long amount) {
        @SuppressWarnings("unchecked")
        UnitasEntity<Wallet> entity = region.getBean("walletEntity", UnitasEntity.class);
        return region.getBean(Wallets.class).deposit(entity, user, amount);
    }

    private static String wallet(ConfigurableApplicationContext region, String user) {
        return region.getBean(Wallets.class).find(user).map(w -> w.balance() + " v" + w.version()).orElse(null);
    }

    private static org.springframework.boot.actuate.health.Health health(ConfigurableApplicationContext region) {
        return region.getBean("unitasReplicationHealthIndicator", HealthIndicator.class).health();
    }
}
