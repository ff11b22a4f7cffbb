package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

import io.micrometer.core.instrument.MeterRegistry;
import io.unitas.spring.cached.CachedWalletApp;
import io.unitas.spring.cached.CachedWalletApp.Wallet;
import io.unitas.spring.cached.CachedWalletApp.WalletReads;
import io.unitas.spring.cached.CachedWalletApp.Wallets;
import io.unitas.testkit.KafkaCluster;
import io.unitas.testkit.MutableClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cache.CacheManager;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A wallet service in two regions over a real Kafka broker, each with its own PostgreSQL database and its own
 * two-level cache on RocksDB files, wired by {@code unitas.cache.*} alone: us changes a wallet, and eu's cached entry
 * is invalidated (the change's invalidation on Kafka), so eu's next read is fresh; an entry past the wallet's
 * staleness budget is never served; a restarted eu reads what it cached from disk.
 */
class CacheInvalidationTest {

    private static final String PREFIX = "k" + UUID.randomUUID().toString().substring(0, 8) + ".";
    private static final MutableClock EU_CLOCK = new MutableClock(Instant.now());
    @TempDir
    static Path files;
    private static String euDb;
    private static String usDb;
    private static ConfigurableApplicationContext eu;
    private static ConfigurableApplicationContext us;

    @BeforeAll
    static void start() {
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        euDb = "cache_eu_" + suffix;
        usDb = "cache_us_" + suffix;
        ReplicationTest.PG.execute("CREATE DATABASE " + euDb, "CREATE DATABASE " + usDb);
        us = region("us", usDb, java.time.Clock.systemUTC());
        eu = region("eu", euDb, EU_CLOCK);
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
        return new SpringApplicationBuilder(CachedWalletApp.class)
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
                     "--unitas.cache.directory=" + files.resolve(region),
                     "--unitas.cache.kafka.group-id=" + PREFIX + region);
    }

    @Test
    void aChangeInUs_invalidatesEusCachedEntry_andTheNextReadIsFresh() {
        String user = user();
        deposit(user, 5);
        await().atMost(ReplicationTest.WAIT).untilAsserted(() -> assertThat(read(eu, user)).isEqualTo("5 v1"));
        int loads = loads(eu);
        assertThat(read(eu, user)).isEqualTo("5 v1");
        assertThat(read(eu, user)).isEqualTo("5 v1");
        assertThat(loads(eu)).as("served by the cache").isEqualTo(loads);
        assertThat(eu.getBean(CacheManager.class)).isInstanceOf(UnitasCaches.class);

        deposit(user, 3);

        await().atMost(ReplicationTest.WAIT).untilAsserted(() -> assertThat(read(eu, user)).isEqualTo("8 v2"));
        assertThat(loads(eu)).as("the dropped entry was read again").isGreaterThan(loads);
        assertThat(eu.getBean(MeterRegistry.class).get("unitas.cache.invalidations").tags("cache", "wallet",
                "outcome", "applied").counter().count()).isGreaterThan(0);
    }

    @Test
    void anEntryPastTheWalletsStalenessBudget_isNotServed() {
        String user = user();
        deposit(user, 7);
        await().atMost(ReplicationTest.WAIT).untilAsserted(() -> assertThat(read(eu, user)).isEqualTo("7 v1"));
        int loads = loads(eu);
        assertThat(read(eu, user)).isEqualTo("7 v1");
        assertThat(loads(eu)).isEqualTo(loads);

        EU_CLOCK.advance(Duration.ofSeconds(4)); // the budget is 3 s

        assertThat(read(eu, user)).isEqualTo("7 v1");
        assertThat(loads(eu)).as("read from the database again, not served stale").isEqualTo(loads + 1);
    }

    private static String user() {
        // a us user (66~99 by mod 100), unique per run: the invalidation topics outlive a test run
        return String.valueOf(ThreadLocalRandom.current().nextLong(1_000_000, 9_000_000) * 100 + 77);
    }

    private static void deposit(String user, long amount) {
        @SuppressWarnings("unchecked")
        io.unitas.spring.UnitasEntity<Wallet> entity = us.getBean("walletEntity", io.unitas.spring.UnitasEntity.class);
        us.getBean(Wallets.class).deposit(entity, user, amount);
    }

    private static String read(ConfigurableApplicationContext region, String user) {
        Wallet w = region.getBean(WalletReads.class).read(user);
        return w == null ? null : w.balance() + " v" + w.version();
    }

    private static int loads(ConfigurableApplicationContext region) {
        return region.getBean(Wallets.class).loads();
    }
}
