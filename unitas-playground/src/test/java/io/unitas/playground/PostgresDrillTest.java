package io.unitas.playground;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.core.Region;
import io.unitas.data.store.StoreResult;
import io.unitas.playground.store.Account;
import io.unitas.playground.store.RegionalStore;
import io.unitas.playground.store.StoreMode;
import io.unitas.testkit.Ports;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The playground on real PostgreSQL, one server per region: cn's server turned read-only the way the seed's incident
 * did ({@code default_transaction_read_only}), and stopped as a crash stops it; the drills' invariants hold as on the
 * embedded store.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresDrillTest {

    private static final Region CN = Region.of("cn");
    /** As {@link DrillTest}'s: room for the longest failover promise inside the fault window. */
    private static final Duration DRILL = Duration.ofSeconds(17);
    private Playground playground;

    @BeforeAll
    void start() {
        playground = Playground.builder().portsFrom(Ports.range(50)).store(StoreKind.POSTGRES).start();
        playground.awaitReady(Duration.ofSeconds(120));
    }

    @AfterAll
    void stop() {
        playground.close();
    }

    @Test
    void cns_server_turned_read_only_refuses_writes_in_the_sessions_already_open_and_takes_them_again_after() {
        RegionalStore cn = playground.store(CN);
        assertThat(cn.putAccount(account("read-only-1")).isOk()).isTrue(); // a pooled session is open now

        playground.databaseMode(CN, StoreMode.READ_ONLY);
        try {
            assertThat(cn.mode()).isEqualTo(StoreMode.READ_ONLY);
            assertThat(cn.putAccount(account("read-only-2")).status()).isEqualTo(StoreResult.Status.READ_ONLY);
            assertThat(cn.account("read-only-1").isOk()).isTrue();
        } finally {
            playground.databaseMode(CN, StoreMode.READ_WRITE);
        }

        assertThat(cn.mode()).isEqualTo(StoreMode.READ_WRITE);
        assertThat(cn.putAccount(account("read-only-3")).isOk()).isTrue();
    }

    @Test
    void db_readonly_and_region_down_on_postgres_keep_every_invariant() {
        for (Scenario scenario : List.of(Scenario.DB_READONLY, Scenario.REGION_DOWN)) {
            playground.awaitReady(Duration.ofSeconds(120));
            DrillResult r = Drill.builder().scenario(scenario).duration(DRILL).users(6)
                                 .progress(System.out::println).build().run(playground);
            System.out.print(DrillTable.of(List.of(r)));

            assertThat(r.accountNotFound()).as(scenario.id()).isZero();
            assertThat(r.duplicateOrders()).as(scenario.id()).isZero();
            // every duplicate reconciliation detected (an order on both sides of a promotion) was refunded
            assertThat(r.reconciled().compensated()).as(scenario.id() + " compensated")
                                                     .isEqualTo(r.reconciled().duplicatesDetected());
            assertThat(r.lostCartItems()).as(scenario.id()).isZero();
            assertThat(r.requests()).as(scenario.id()).isGreaterThan(30);
            assertThat(r.failoverMillis()).as(scenario.id() + " failover").isNotNegative();
        }
    }

    private static Account account(String user) {
        return new Account(user, "u-cn", CN, user, Instant.now());
    }
}
