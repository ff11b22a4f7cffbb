package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.unitas.spring.replicatedjpa.JpaWalletApp;
import io.unitas.spring.replicatedjpa.JpaWalletApp.Balances;
import io.unitas.testkit.PostgresCluster;
import io.unitas.testkit.SqlServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The outbox in a JPA service's transaction: two regions of a service on Hibernate and Spring Data, each with its own
 * PostgreSQL database. The account saved through the repository and its change commit together; and because the
 * outbox flushes the persistence context before it takes the change's position, two transactions on one account ship
 * in the order their row locks let them commit, so the regions end alike.
 */
class JpaReplicationTest {

    static final SqlServer PG = PostgresCluster.shared().primary();

    private static final String GROUP = "jpa-" + UUID.randomUUID();
    private static String euDb;
    private static String usDb;
    private static ConfigurableApplicationContext eu;
    private static ConfigurableApplicationContext us;

    @BeforeAll
    static void startBothRegions() {
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        euDb = "jpa_eu_" + suffix;
        usDb = "jpa_us_" + suffix;
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

    static ConfigurableApplicationContext region(String region, String db) {
        Map<String, String> args = new LinkedHashMap<>();
        args.put("spring.autoconfigure.exclude", "");
        args.put("spring.main.web-application-type", "none");
        args.put("spring.datasource.url", "jdbc:postgresql://127.0.0.1:" + PG.port() + "/" + db);
        args.put("spring.datasource.username", PG.admin().getProperty("user"));
        args.put("spring.datasource.password", PG.admin().getProperty("password", ""));
        args.put("spring.jpa.hibernate.ddl-auto", "update");
        args.put("spring.jpa.open-in-view", "false");
        args.put("unitas.region", region);
        args.put("unitas.replication.transport", "embedded");
        args.put("unitas.replication.embedded.group", GROUP);
        args.put("unitas.replication.regions", "eu,us");
        args.put("unitas.replication.ship-interval", "20ms");
        return new SpringApplicationBuilder(JpaWalletApp.class)
                .run(args.entrySet().stream().map(e -> "--" + e.getKey() + "=" + e.getValue()).toArray(String[]::new));
    }

    @Test
    void anAccountSavedThroughTheRepository_isWrittenInEu_andARollbackShipsNothing() {
        set(us, "80", 42, () -> {});
        await().atMost(ReplicationTest.WAIT).untilAsserted(() -> assertThat(account(euDb, "80")).isEqualTo("42 v1"));

        assertThatThrownBy(() -> set(us, "80", -1, () -> {})).isInstanceOf(IllegalArgumentException.class);
        set(us, "80", 50, () -> {});

        await().atMost(ReplicationTest.WAIT).untilAsserted(() -> assertThat(account(euDb, "80")).isEqualTo("50 v2"));
        assertThat(account(usDb, "80")).isEqualTo("50 v2");
    }

    /**
     * T1 sets 100 and appends, then holds its transaction open; T2 sets 200 on the same account. Had the outbox taken
     * T1's position before Hibernate wrote T1's row (at commit), T2 would write and commit first with a later
     * position, T1 would then overwrite it with 100 here, and eu, applying the positions in order, would end at 200.
     */
    @Test
    void twoTransactionsOnOneAccount_shipInTheOrderTheirRowLocksLetThemCommit() throws Exception {
        set(us, "81", 1, () -> {});
        await().atMost(ReplicationTest.WAIT).untilAsserted(() -> assertThat(account(euDb, "81")).isEqualTo("1 v1"));
        CountDownLatch appended = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);

        CompletableFuture<Void> first = CompletableFuture.runAsync(() -> set(us, "81", 100, () -> {
            appended.countDown();
            awaitLatch(release);
        }));
        assertThat(appended.await(60, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> second = CompletableFuture.runAsync(() -> set(us, "81", 200, () -> {}));
        // T2 either finished (the bug) or waits for T1's row lock (the outbox flushed T1's write first)
        await().atMost(ReplicationTest.WAIT).until(() -> second.isDone() || Long.parseLong(ReplicationTest.query(
                usDb, "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")) > 0);
        release.countDown();
        first.get(60, TimeUnit.SECONDS);
        second.get(60, TimeUnit.SECONDS);

        String origin = account(usDb, "81");
        assertThat(origin).startsWith("200 ");
        await().atMost(ReplicationTest.WAIT).untilAsserted(() -> assertThat(account(euDb, "81")).isEqualTo(origin));
    }

    private static void set(ConfigurableApplicationContext region, String user, long balance, Runnable afterAppend) {
        region.getBean(Balances.class).set(user, balance, afterAppend);
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            assertThat(latch.await(60, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String account(String db, String user) {
        return ReplicationTest.query(db, "SELECT balance || ' v' || version FROM account WHERE user_id = '" + user
                                         + "'");
    }
}
