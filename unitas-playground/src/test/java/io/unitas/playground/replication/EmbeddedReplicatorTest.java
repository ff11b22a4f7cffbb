package io.unitas.playground.replication;

import static io.unitas.playground.EmbeddedRegions.CN;
import static io.unitas.playground.EmbeddedRegions.EU;
import static io.unitas.playground.EmbeddedRegions.US;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.unitas.core.Region;
import io.unitas.playground.EmbeddedRegions;
import io.unitas.playground.FakeClock;
import io.unitas.playground.store.Account;
import io.unitas.playground.store.Change;
import io.unitas.playground.store.RegionalStore;
import io.unitas.playground.store.StoreMode;
import io.unitas.data.store.StoreResult;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class EmbeddedReplicatorTest {

    @RegisterExtension
    final EmbeddedRegions regions = new EmbeddedRegions();
    final FakeClock clock = regions.clock;
    final RegionalStore cn = regions.cn;
    final RegionalStore eu = regions.eu;
    final RegionalStore us = regions.us;

    Account user(String id, Region home) {
        return new Account(id, "u-" + home, home, id, clock.instant());
    }

    @Test
    void change_shipsNoEarlierThanItsLinksDelay_andLagIsTheAgeOfTheOldestPendingChange() {
        Replicator replicator = Replicator.builder().stores(cn, eu).clock(clock).delay(Duration.ofMillis(200)).build();
        cn.putAccount(user("alice", CN));

        clock.advance(Duration.ofMillis(199));
        replicator.replicateDue();
        assertThat(eu.account("alice").status()).isEqualTo(StoreResult.Status.NOT_FOUND);
        assertThat(replicator.link(CN, EU)).extracting(LinkStatus::pendingChanges, LinkStatus::lagMillis)
                                           .containsExactly(1L, 199L);

        clock.advance(Duration.ofMillis(1));
        replicator.replicateDue();
        assertThat(eu.account("alice").isOk()).isTrue();
        LinkStatus link = replicator.link(CN, EU);
        assertThat(link.caughtUp()).isTrue();
        assertThat(link.lagMillis()).isZero();
        assertThat(link.lastApplyDelayMillis()).isEqualTo(200);
        assertThat(link.appliedSeq()).isEqualTo(1);
    }

    @Test
    void theChangeLog_keepsWhatSomeRegionHasNotApplied_andLosesTheRest() {
        Replicator replicator = Replicator.builder().stores(cn, eu, us).clock(clock).delay(Duration.ZERO).build();
        cn.putAccount(user("alice", CN));
        cn.putAccount(user("bob", CN));
        replicator.pause(CN, US);

        replicator.replicateDue();
        assertThat(cn.changesSince(0, 10).value()).as("us has applied none").hasSize(2);

        replicator.resume(CN, US);
        clock.advance(EmbeddedReplicator.TRIM_EVERY);
        replicator.replicateDue();
        assertThat(cn.changesSince(0, 10).value()).as("all applied; the newest stays")
                                                  .extracting(Change::seq).containsExactly(2L);

        cn.putAccount(user("carol", CN));
        replicator.replicateDue();
        assertThat(us.account("carol").isOk()).isTrue();
    }

    @Test
    void aRoundThatShipsAFullBatch_doesNotReportTheLinkCaughtUp_whileTheLogHoldsMore() {
        Replicator replicator = Replicator.builder().stores(cn, eu).clock(clock).batchSize(2).build();
        cn.putAccount(user("alice", CN));
        cn.putAccount(user("bob", CN));
        cn.putAccount(user("carol", CN));
        clock.advance(Duration.ofMillis(50));

        replicator.replicateDue();
        assertThat(eu.account("carol").status()).as("beyond the first batch").isEqualTo(StoreResult.Status.NOT_FOUND);
        LinkStatus afterOne = replicator.link(CN, EU);
        assertThat(afterOne.caughtUp()).as("a full batch may not be all").isFalse();
        assertThat(afterOne.lagMillis()).isPositive();

        replicator.replicateDue();
        assertThat(eu.account("carol").isOk()).isTrue();
        replicator.replicateDue();
        assertThat(replicator.link(CN, EU).caughtUp()).isTrue();
        assertThat(replicator.link(CN, EU).lagMillis()).isZero();
    }

    @Test
    void caughtUp_measuresNow_notWhatTheLastRoundSaw() {
        Replicator replicator = Replicator.builder().stores(cn, eu).clock(clock).delay(Duration.ofMillis(200)).build();
        replicator.replicateDue();
        cn.putAccount(user("alice", CN));
        assertThat(replicator.link(CN, EU).caughtUp()).as("the last round predates alice").isTrue();

        assertThat(replicator.caughtUp()).as("alice is not due yet").isFalse();
        clock.advance(Duration.ofMillis(200));
        assertThat(replicator.caughtUp()).isTrue();
        assertThat(eu.account("alice").isOk()).isTrue();
    }

    @Test
    void everyRegion_receivesEveryOtherRegionsWrites() {
        Replicator replicator = Replicator.builder().stores(cn, eu, us).clock(clock).build();
        cn.putAccount(user("alice", CN));
        eu.putAccount(user("bruno", EU));
        us.putAccount(user("carol", US));
        replicator.replicateDue();
        for (RegionalStore store : regions.all()) {
            for (String user : List.of("alice", "bruno", "carol")) {
                assertThat(store.account(user).isOk()).as("%s in %s", user, store.region()).isTrue();
            }
        }
        assertThat(replicator.links()).hasSize(6).allSatisfy(link -> assertThat(link.caughtUp()).isTrue());
    }

    @Test
    void pausedLink_shipsNothing_itsLagGrows_andResumeCatchesUp() {
        Replicator replicator = Replicator.builder().stores(cn, eu, us).clock(clock).build();
        replicator.pause(CN, EU);
        cn.putAccount(user("alice", CN));
        clock.advance(Duration.ofSeconds(30));
        replicator.replicateDue();

        assertThat(eu.account("alice").status()).isEqualTo(StoreResult.Status.NOT_FOUND);
        assertThat(us.account("alice").isOk()).as("other links keep shipping").isTrue();
        assertThat(replicator.link(CN, EU).paused()).isTrue();
        assertThat(replicator.link(CN, EU).lagMillis()).isEqualTo(30_000);
        clock.advance(Duration.ofSeconds(5));
        assertThat(replicator.link(CN, EU).lagMillis()).isEqualTo(35_000);

        replicator.resume(CN, EU);
        replicator.replicateDue();
        assertThat(eu.account("alice").isOk()).isTrue();
        assertThat(replicator.link(CN, EU).lagMillis()).isZero();
        assertThat(replicator.link(CN, EU).lastApplyDelayMillis()).isEqualTo(35_000);
    }

    @Test
    void unavailableTarget_keepsItsBacklog_untilItComesBack() {
        Replicator replicator = Replicator.builder().stores(cn, eu).clock(clock).build();
        cn.putAccount(user("alice", CN));
        replicator.replicateDue();
        eu.mode(StoreMode.UNAVAILABLE);
        cn.putAccount(user("bruno", CN));
        clock.advance(Duration.ofSeconds(3));
        replicator.replicateDue();
        assertThat(replicator.link(CN, EU)).extracting(LinkStatus::pendingChanges, LinkStatus::lagMillis,
                                                       LinkStatus::problem)
                                           .containsExactly(1L, 3_000L, "eu: store is unavailable: switched off");

        eu.mode(StoreMode.READ_WRITE);
        replicator.replicateDue();
        assertThat(eu.account("bruno").isOk()).isTrue();
        assertThat(replicator.link(CN, EU).problem()).isEmpty();
        assertThat(replicator.link(CN, EU).lastApplyDelayMillis()).isEqualTo(3_000);
    }

    @Test
    void changeThatCannotBeApplied_stallsItsLinkVisibly_andNotTheOthers() throws Exception {
        JdbcDataSource database = new JdbcDataSource();
        database.setURL("jdbc:h2:mem:corrupt-cn;DB_CLOSE_DELAY=-1");
        try (RegionalStore corrupt = RegionalStore.jdbc(CN, database, clock);
             Connection c = database.getConnection(); Statement s = c.createStatement()) {
            s.execute("INSERT INTO shop_changes VALUES (1, 'ACCOUNT', 'alice', 'name=Alice', 0)");
            Replicator replicator = Replicator.builder().stores(corrupt, eu).clock(clock).build();
            eu.putAccount(user("bruno", EU));
            replicator.replicateDue();

            assertThat(replicator.link(CN, EU).problem())
                    .isEqualTo("change " + corrupt.replicaId() + "#1: payload: no field 'user' (expected: [name] to include it)");
            assertThat(replicator.link(CN, EU).pendingChanges()).isEqualTo(1);
            assertThat(corrupt.account("bruno").isOk()).as("eu->cn still ships").isTrue();
            s.execute("SHUTDOWN");
        }
    }

    @Test
    void regionWipedAndRebuilt_writesUnderANewReplicaId_soItsNewCartItemsAreNotMistakenForSeenOnes() {
        try (Replicator before = Replicator.builder().stores(cn, eu).clock(clock).build()) {
            eu.updateCart("alice", (c, replica) -> c.add(replica, "book", 1));
            before.replicateDue();
        }
        try (RegionalStore rebuiltEu = RegionalStore.embedded(EU, clock);
             Replicator after = Replicator.builder().stores(cn, rebuiltEu).clock(clock).build()) {
            rebuiltEu.updateCart("alice", (c, replica) -> c.add(replica, "cup", 1));
            after.replicateDue();
            assertThat(cn.cart("alice").value().items()).containsOnlyKeys("book", "cup");

            // Only writes ship, not snapshots: the rebuilt eu gets the old book back with cn's next write of the cart.
            cn.updateCart("alice", (c, replica) -> c.add(replica, "pen", 1));
            after.replicateDue();
            assertThat(rebuiltEu.cart("alice").value().items()).containsOnlyKeys("book", "cup", "pen");
        }
    }

    @Test
    void delay_perLink_overridesTheDefault() {
        Replicator replicator = Replicator.builder().stores(cn, eu, us).clock(clock)
                                          .delay(Duration.ofMillis(100)).delay(CN, US, Duration.ofSeconds(2)).build();
        cn.putAccount(user("alice", CN));
        clock.advance(Duration.ofMillis(100));
        replicator.replicateDue();
        assertThat(eu.account("alice").isOk()).isTrue();
        assertThat(us.account("alice").isOk()).isFalse();

        replicator.delay(CN, US, Duration.ZERO);
        replicator.replicateDue();
        assertThat(us.account("alice").isOk()).isTrue();
    }

    @Test
    void unknownLink_isRejectedNamingTheRegions() {
        Replicator replicator = Replicator.builder().stores(cn, eu).clock(clock).build();
        assertThatThrownBy(() -> replicator.pause(CN, US))
                .hasMessage("pause cn->us: no such link (expected regions: [cn, eu])");
        assertThatThrownBy(() -> Replicator.builder().stores(cn, eu).delay(Duration.ofMillis(-1)))
                .hasMessage("delay: PT-0.001S (expected: >= 0)");
    }

    @Test
    void background_shipsWithTheInjectedDelay_onTheSystemClock() throws InterruptedException {
        RegionalStore cnLive = RegionalStore.embedded(CN, Clock.systemUTC());
        RegionalStore euLive = RegionalStore.embedded(EU, Clock.systemUTC());
        try (Replicator replicator = Replicator.builder().stores(cnLive, euLive).delay(Duration.ofMillis(50))
                                               .pollInterval(Duration.ofMillis(2)).build()) {
            replicator.start();
            cnLive.putAccount(new Account("alice", "u-cn", CN, "Alice", Clock.systemUTC().instant()));
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!euLive.account("alice").isOk() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(euLive.account("alice").isOk()).isTrue();
            assertThat(replicator.link(CN, EU).lastApplyDelayMillis()).isBetween(50L, 10_000L);
        } finally {
            cnLive.close();
            euLive.close();
        }
    }
}
