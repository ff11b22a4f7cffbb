package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import io.micrometer.core.instrument.MeterRegistry;
import io.unitas.spring.replicated.ReplicatedWalletApp;
import io.unitas.spring.replicated.ReplicatedWalletApp.Wallet;
import io.unitas.spring.replicated.ReplicatedWalletApp.Wallets;
import io.unitas.testkit.KafkaCluster;
import io.unitas.testkit.MutableClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The wallet declares a staleness budget of 5 s. us replicates to eu over a real Kafka broker on a clock the test
 * moves; while eu is stopped (replication paused: nothing applies us's changes), us's wallet lag grows past the budget,
 * and its unitas health component says so and, with {@code unitas.consistency.gate: out-of-service}, takes the
 * instance out; once eu is back and has applied the change, the reason is gone.
 */
class ConsistencyLagTest {

    private static final String PREFIX = "c" + UUID.randomUUID().toString().substring(0, 8) + ".";
    private static final MutableClock CLOCK = new MutableClock(Instant.now());
    private static String euDb;
    private static String usDb;
    private static ConfigurableApplicationContext eu;
    private static ConfigurableApplicationContext us;

    @BeforeAll
    static void start() {
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        euDb = "lag_eu_" + suffix;
        usDb = "lag_us_" + suffix;
        ReplicationTest.PG.execute("CREATE DATABASE " + euDb, "CREATE DATABASE " + usDb);
        us = region("us", usDb, CLOCK);
        eu = region("eu", euDb, java.time.Clock.systemUTC());
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

    private static ConfigurableApplicationContext region(String region, String db, java.time.Clock clock) {
        return new SpringApplicationBuilder(ReplicatedWalletApp.class)
                .initializers(c -> c.getBeanFactory().registerSingleton("unitasTestClock", clock))
                .run("--spring.autoconfigure.exclude=",
                     "--spring.main.web-application-type=none",
                     "--spring.datasource.url=jdbc:postgresql://127.0.0.1:" + ReplicationTest.PG.port() + "/" + db,
                     "--spring.datasource.username=" + ReplicationTest.PG.admin().getProperty("user"),
                     "--spring.datasource.password=" + ReplicationTest.PG.admin().getProperty("password", ""),
                     "--spring.datasource.hikari.maximum-pool-size=4",
                     "--unitas.region=" + region,
                     "--unitas.replication.regions=eu,us",
                     "--unitas.replication.ship-interval=20ms",
                     "--unitas.replication.transport=kafka",
                     "--unitas.replication.kafka.bootstrap-servers=" + KafkaCluster.shared().bootstrapServers(),
                     "--unitas.replication.kafka.topic-prefix=" + PREFIX,
                     "--unitas.replication.kafka.partitions=2",
                     "--unitas.consistency.gate=out-of-service");
    }

    @Test
    void replicationPaused_lagPastTheBudget_isAReasonThatGates_andClearsWhenCaughtUp() {
        deposit("80", 1);
        await().atMost(ReplicationTest.WAIT).untilAsserted(() -> assertThat(wallet(eu, "80")).isEqualTo("1 v1"));
        await().atMost(ReplicationTest.WAIT).untilAsserted(() -> assertThat(lag()).isZero());
        assertThat(health().getStatus()).isEqualTo(Status.UP);
        assertThat(meters().get("unitas.consistency.budget").tag("entity", "wallet").gauge().value()).isEqualTo(5.0);

        eu.close(); // replication paused: nothing applies us's changes in eu
        deposit("80", 1);
        CLOCK.advance(Duration.ofSeconds(4));
        await().atMost(ReplicationTest.WAIT).untilAsserted(() -> assertThat(lag()).isGreaterThanOrEqualTo(4.0));
        assertThat(health().getStatus()).as("4 s is within the budget").isEqualTo(Status.UP);

        CLOCK.advance(Duration.ofSeconds(8));
        await().atMost(ReplicationTest.WAIT).untilAsserted(() -> {
            Health h = health();
            assertThat(h.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
            assertThat(h.getDetails().get("reasons")).asString()
                    .contains("consistency: wallet lags 1").contains(" s in eu, over its staleness budget of 5.0 s"
                                                                      + " (expected: <= 5.0 s)");
        });
        assertThat(lag()).isGreaterThanOrEqualTo(12.0);

        eu = region("eu", euDb, java.time.Clock.systemUTC());
        await().atMost(ReplicationTest.WAIT).untilAsserted(() -> assertThat(wallet(eu, "80")).isEqualTo("2 v2"));
        await().atMost(ReplicationTest.WAIT).untilAsserted(() -> {
            assertThat(lag()).isZero();
            assertThat(health().getStatus()).isEqualTo(Status.UP);
            assertThat(health().getDetails()).doesNotContainKey("reasons");
        });
    }

    private static double lag() {
        return meters().get("unitas.consistency.lag").tag("entity", "wallet").gauge().value();
    }

    private static MeterRegistry meters() {
        return us.getBean(MeterRegistry.class);
    }

    private static Health health() {
        return us.getBean("unitasHealthIndicator", HealthIndicator.class).health();
    }

    private static void deposit(String user, long amount) {
        @SuppressWarnings("unchecked")
        UnitasEntity<Wallet> entity = us.getBean("walletEntity", UnitasEntity.class);
        us.getBean(Wallets.class).deposit(entity, user, amount);
    }

    private static String wallet(ConfigurableApplicationContext region, String user) {
        return region.getBean(Wallets.class).find(user).map(w -> w.balance() + " v" + w.version()).orElse(null);
    }
}
