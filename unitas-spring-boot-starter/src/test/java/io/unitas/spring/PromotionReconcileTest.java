package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Clock;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import io.unitas.core.Region;
import io.unitas.data.outbox.Outbox;
import io.unitas.spring.wallet.MovableRoutingState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.Status;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The starter's replication after a failover: us acknowledged a deposit of user 70 (unit u-us) and went down before
 * shipping it; the unit moved to eu, which took a deposit of its own; then us came back and shipped the old one. eu,
 * the unit's new home, never writes it over its own wallet: without a reconciler the unit's stream from us stops, with
 * the reason in eu's health; with one ({@link UnitasChangeHandler#reconciledBy}), the reconciler decides it, once.
 */
class PromotionReconcileTest {

    private final String group = "promotion-" + UUID.randomUUID();
    private final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    private final String euDb = "promo_eu_" + suffix;
    private final String usDb = "promo_us_" + suffix;
    private ConfigurableApplicationContext eu;
    private ConfigurableApplicationContext us;

    @BeforeEach
    void databases() {
        ReplicationTest.PG.execute("CREATE DATABASE " + euDb, "CREATE DATABASE " + usDb);
    }

    @AfterEach
    void stop() {
        for (ConfigurableApplicationContext region : new ConfigurableApplicationContext[] {eu, us}) {
            if (region != null) {
                region.close();
            }
        }
        ReplicationTest.PG.execute("DROP DATABASE IF EXISTS " + euDb + " WITH (FORCE)",
                                   "DROP DATABASE IF EXISTS " + usDb + " WITH (FORCE)");
    }

    @Test
    void withoutAReconciler_theUnshippedDeposit_stopsItsUnit_andIsNotWrittenOverTheNewHome() {
        failOverWithAnUnshippedDeposit(false);

        await().atMost(ReplicationTest.WAIT).untilAsserted(() -> {
            assertThat(ReplicationTest.health(eu).getStatus()).isEqualTo(Status.DOWN);
            assertThat(ReplicationTest.health(eu).getDetails().get("problems").toString())
                    .contains("u-us", "expected: a reconciler", "reconciledBy", "entity type 'wallet'");
        });
        assertThat(ReplicationTest.wallet(eu, "70")).as("eu's own wallet stands").isEqualTo("43 v2");
    }

    @Test
    void withAReconciler_theUnshippedDeposit_isDecidedByIt_once_andNotWrittenOverTheNewHome() {
        failOverWithAnUnshippedDeposit(true);

        await().atMost(ReplicationTest.WAIT).untilAsserted(() -> assertThat(
                ReplicationTest.query(euDb, "SELECT string_agg(origin || ': ' || payload, ',') FROM wallet_crossed"))
                .isEqualTo("us: 70 50 2"));
        assertThat(ReplicationTest.wallet(eu, "70")).isEqualTo("43 v2");
        await().atMost(ReplicationTest.WAIT).untilAsserted(
                () -> assertThat(ReplicationTest.health(eu).getStatus()).isEqualTo(Status.UP));
        assertThat(ReplicationTest.query(euDb, "SELECT COUNT(*) FROM wallet_crossed")).isEqualTo("1");
    }

    private void failOverWithAnUnshippedDeposit(boolean reconciler) {
        us = region("us", usDb, reconciler);
        eu = region("eu", euDb, reconciler);
        ReplicationTest.deposit(us, "70", 42);
        await().atMost(ReplicationTest.WAIT).untilAsserted(
                () -> assertThat(ReplicationTest.wallet(eu, "70")).isEqualTo("42 v1"));

        us.close();                                           // us is down, with a deposit it never shipped
        unshippedDeposit(usDb, "70 50 2");
        eu.getBean(MovableRoutingState.class).move("u-us", "eu");
        ReplicationTest.deposit(eu, "70", 1);                 // eu, the new home, serves the user

        us = region("us", usDb, reconciler);                  // back: it ships what it had not
        us.getBean(MovableRoutingState.class).move("u-us", "eu");
    }

    private static void unshippedDeposit(String db, String wallet) {
        try (HikariDataSource ds = new HikariDataSource()) {
            ds.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + ReplicationTest.PG.port() + "/" + db);
            ds.setDataSourceProperties(ReplicationTest.PG.admin());
            Outbox outbox = Outbox.jdbc(Region.of("us"), ds, Clock.systemUTC());
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                c.createStatement().execute("UPDATE wallet SET balance = 50, version = 2 WHERE user_id = '70'");
                outbox.append(c, "u-us", "wallet", "70", wallet.getBytes(StandardCharsets.UTF_8));
                c.commit();
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private ConfigurableApplicationContext region(String region, String db, boolean reconciler) {
        return ReplicationTest.region(region, db, "--unitas.replication.embedded.group=" + group,
                                      "--wallet.movable=true", "--wallet.reconciler=" + reconciler);
    }
}
