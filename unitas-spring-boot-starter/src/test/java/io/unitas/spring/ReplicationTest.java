package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.unitas.spring.replicated.ReplicatedWalletApp;
import io.unitas.spring.replicated.ReplicatedWalletApp.Wallet;
import io.unitas.spring.replicated.ReplicatedWalletApp.Wallets;
import io.unitas.testkit.PostgresCluster;
import io.unitas.testkit.SqlServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Two regions of a wallet service, eu and us, as two application contexts of one JVM, each with its own PostgreSQL
 * database and nothing wired by hand: a deposit's change is appended in the deposit's own {@code @Transactional}
 * transaction, shipped on the embedded transport, and written in the other region by the service's
 * {@link UnitasChangeHandler} bean. User 70 is homed in us (unit u-us); the incident was a deposit for them
 * that failed over to eu and found no wallet there.
 */
class ReplicationTest {

    static final SqlServer PG = PostgresCluster.shared().primary();
    static final Duration WAIT = Duration.ofSeconds(60);

    private static final String GROUP = "replication-" + UUID.randomUUID();
    private static String euDb;
    private static String usDb;
    private static ConfigurableApplicationContext eu;
    private static ConfigurableApplicationContext us;

    @BeforeAll
    static void startBothRegions() {
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        euDb = "repl_eu_" + suffix;
        usDb = "repl_us_" + suffix;
        PG.execute("CREATE DATABASE " + euDb, "CREATE DATABASE " + usDb);
        us = region("us", usDb);
        eu = region("eu", euDb);
    }

    @AfterAll
    static void stop() {
        for (ConfigurableApplicationContext region : new ConfigurableApplicationContext[] {eu, us}) {
            if (region != null) {
                region.close();
            }
        }
        PG.execute("DROP DATABASE IF EXISTS " + euDb + " WITH (FORCE)",
                   "DROP DATABASE IF EXISTS " + usDb + " WITH (FORCE)");
    }

    /** One region of the service, from properties alone; {@code more} adds or replaces {@code --name=value}s. */
    static ConfigurableApplicationContext region(String region, String db, String... more) {
        java.util.Map<String, String> args = new java.util.LinkedHashMap<>();
        for (String arg : List.of(
                "--spring.autoconfigure.exclude=",
                "--spring.main.web-application-type=none",
                "--spring.datasource.url=jdbc:postgresql://127.0.0.1:" + PG.port() + "/" + db,
                "--spring.datasource.username=" + PG.admin().getProperty("user"),
                "--spring.datasource.password=" + PG.admin().getProperty("password", ""),
                "--spring.datasource.hikari.maximum-pool-size=4",
                "--unitas.region=" + region,
                "--unitas.replication.transport=embedded",
                "--unitas.replication.embedded.group=" + GROUP,
                "--unitas.replication.regions=eu,us",
                "--unitas.replication.ship-interval=20ms")) {
            args.put(arg.substring(0, arg.indexOf('=')), arg);
        }
        for (String arg : more) {
            args.put(arg.substring(0, arg.indexOf('=')), arg);
        }
        return new SpringApplicationBuilder(ReplicatedWalletApp.class)
                .run(args.values().toArray(String[]::new));
    }

    @Test
    void aDepositInUs_isWrittenInEuByTheHandler_soAFailedOverDepositFindsTheWallet() {
        deposit(us, "70", 42);

        await().atMost(WAIT).untilAsserted(() -> assertThat(wallet(eu, "70")).isEqualTo("42 v1"));

        Wallet failedOver = deposit(eu, "70", 1);
        assertThat(failedOver.balance()).as("eu's copy, not a new wallet").isEqualTo(43);
        await().atMost(WAIT).untilAsserted(() -> assertThat(wallet(us, "70")).isEqualTo("43 v2"));
        await().atMost(WAIT).untilAsserted(() -> assertThat(health(eu).getDetails())
                .containsEntry("maxLagMillis", java.util.Map.of("us", 0L)));
    }

    @Test
    void aRegionThatHasNotShippedYet_reportsItsLagUnknown_notZero() {
        String db = "repl_solo_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        PG.execute("CREATE DATABASE " + db);
        // alone in its group: us is never there, so no round succeeds and nothing is known of us's copy
        try (ConfigurableApplicationContext solo = region("eu", db, "--unitas.replication.embedded.group=solo-" + db)) {
            await().atMost(WAIT).untilAsserted(() -> assertThat(health(solo).getDetails())
                    .containsEntry("maxLagMillis", java.util.Map.of("us", "unknown")));
        } finally {
            PG.execute("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
        }
    }

    @Test
    void aRolledBackDeposit_shipsNothing() {
        deposit(us, "71", 5);
        assertThatThrownBy(() -> deposit(us, "71", -3)).isInstanceOf(IllegalArgumentException.class);
        deposit(us, "71", 7);

        await().atMost(WAIT).untilAsserted(() -> assertThat(wallet(eu, "71")).isEqualTo("12 v2"));
        assertThat(query(euDb, "SELECT string_agg(version::text, ',' ORDER BY n) FROM wallet_applied"
                               + " WHERE user_id = '71'")).as("the changes eu applied").isEqualTo("1,2");
        assertThat(wallet(us, "71")).isEqualTo("12 v2");
    }

    @Test
    void aUnitsChanges_areAppliedInTheirOrder_eachOnce() {
        for (int i = 0; i < 30; i++) {
            deposit(us, "72", 1);
        }

        await().atMost(WAIT).untilAsserted(() -> assertThat(wallet(eu, "72")).isEqualTo("30 v30"));
        assertThat(query(euDb, "SELECT string_agg(version::text, ',' ORDER BY n) FROM wallet_applied"
                               + " WHERE user_id = '72'"))
                .isEqualTo(String.join(",", java.util.stream.IntStream.rangeClosed(1, 30).mapToObj(String::valueOf)
                                                                           .toList()));
    }

    @Test
    void regionsRestarted_applyNothingTwice() {
        eu.close();
        for (int i = 0; i < 5; i++) {
            deposit(us, "73", 1);
        }
        eu = region("eu", euDb);
        await().atMost(WAIT).untilAsserted(() -> assertThat(wallet(eu, "73")).isEqualTo("5 v5"));

        us.close();
        us = region("us", usDb); // its shipper starts again from what eu acknowledged
        deposit(us, "73", 1);

        await().atMost(WAIT).untilAsserted(() -> assertThat(wallet(eu, "73")).isEqualTo("6 v6"));
        assertThat(query(euDb, "SELECT string_agg(version::text, ',' ORDER BY n) FROM wallet_applied"
                               + " WHERE user_id = '73'")).isEqualTo("1,2,3,4,5,6");
        assertThat(health(us).getStatus()).isEqualTo(Status.UP);
    }

    @Test
    void aChangeOfATypeWithoutAHandler_stopsItsUnit_andBothRegionsHealthSaysWhy() {
        eu.close();
        eu = region("eu", euDb, "--wallet.note-handler=false");
        try {
            us.getBean(Wallets.class).note("74", "n-74", "hello");

            await().atMost(WAIT).untilAsserted(() -> {
                assertThat(health(eu).getStatus()).isEqualTo(Status.DOWN);
                assertThat(health(eu).getDetails().get("problems").toString())
                        .contains("u-us", "no handler for entity type 'note'");
            });
            await().atMost(WAIT).untilAsserted(() -> assertThat(health(us).getDetails().get("problems").toString())
                    .contains("no handler for entity type 'note'"));
        } finally {
            eu.close();
            eu = region("eu", euDb);
        }
        await().atMost(WAIT).untilAsserted(() -> assertThat(query(euDb, "SELECT text FROM note WHERE id = 'n-74'"))
                .as("applied once eu has the handler").isEqualTo("hello"));
        await().atMost(WAIT).untilAsserted(() -> assertThat(health(eu).getStatus()).isEqualTo(Status.UP));
    }

    @Test
    void anAppendOutsideATransaction_isRefusedByName() {
        UnitasOutbox outbox = us.getBean(UnitasOutbox.class);

        assertThatThrownBy(() -> outbox.append("70", "wallet", "70", new byte[] {1}))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no transaction (expected: a call inside @Transactional");
        assertThatThrownBy(() -> outbox.unitOf("x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("owner 'x'");
    }

    @Test
    void wrongSettings_areOneLineEach_atStart() {
        Throwable failure = catchFailure(() -> region("eu", euDb, "--unitas.replication.transport=rabbit",
                                                      "--unitas.replication.regions=eu,mars",
                                                      "--unitas.replication.ship-interval=0s"));

        FailureAnalysis analysis = new UnitasFailureAnalyzer().analyze(failure);
        assertThat(analysis).as(String.valueOf(failure)).isNotNull();
        assertThat(analysis.getDescription().lines().skip(1).map(String::strip).toList()).containsExactly(
                "unitas.replication.transport: 'rabbit' (expected: embedded or kafka)",
                "unitas.replication.regions[1]: 'mars' (expected: a region of the topology, one of [cn, eu, us])",
                "unitas.replication.ship-interval: PT0S (expected: > 0)");

        Throwable kafka = catchFailure(() -> region("eu", euDb, "--unitas.replication.transport=kafka"));
        assertThat(new UnitasFailureAnalyzer().analyze(kafka).getDescription())
                .contains("unitas.replication.kafka.bootstrap-servers: missing (expected: host:port");

        Throwable duration = catchFailure(() -> region("eu", euDb, "--unitas.replication.stale-after=soon"));
        assertThat(new UnitasFailureAnalyzer().analyze(duration).getDescription())
                .contains("unitas.replication.stale-after: 'soon' (expected: java.time.Duration)");
    }

    private static Throwable catchFailure(Runnable start) {
        try {
            start.run();
        } catch (RuntimeException e) {
            return e;
        }
        throw new AssertionError("started (expected: a failure)");
    }

    static Wallet deposit(ConfigurableApplicationContext region, String user, long amount) {
        @SuppressWarnings("unchecked")
        UnitasEntity<Wallet> entity = region.getBean("walletEntity", UnitasEntity.class);
        return region.getBean(Wallets.class).deposit(entity, user, amount);
    }

    static String wallet(ConfigurableApplicationContext region, String user) {
        return region.getBean(Wallets.class).find(user).map(w -> w.balance() + " v" + w.version()).orElse(null);
    }

    static org.springframework.boot.actuate.health.Health health(ConfigurableApplicationContext region) {
        return region.getBean("unitasReplicationHealthIndicator", HealthIndicator.class).health();
    }

    static String query(String db, String sql) {
        return TwoRegionsTest.query(db, sql);
    }
}
