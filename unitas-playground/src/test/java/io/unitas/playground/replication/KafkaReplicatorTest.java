package io.unitas.playground.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.core.Region;
import io.unitas.data.store.StoreResult;
import io.unitas.playground.store.Account;
import io.unitas.playground.store.RegionalStore;
import io.unitas.testkit.Await;
import io.unitas.testkit.KafkaCluster;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The playground's stores replicating through a real Kafka broker (KRaft, from the Maven artifacts): every change
 * arrives in order, a paused link holds its changes in Kafka while its lag grows, and a replicator started again on
 * the same stores and topics delivers what was written while it was down.
 */
class KafkaReplicatorTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final Region US = Region.of("us");
    private static final Duration SETTLE = Duration.ofSeconds(60);

    private final Clock clock = Clock.systemUTC();
    private final RegionalStore cn = RegionalStore.embedded(CN, clock);
    private final RegionalStore eu = RegionalStore.embedded(EU, clock);
    private final RegionalStore us = RegionalStore.embedded(US, clock);
    /** Topics of their own, on the broker every test of this JVM shares. */
    private final String topics = "t" + UUID.randomUUID().toString().substring(0, 8) + ".";
    private Replicator replicator;

    @AfterEach
    void close() {
        if (replicator != null) {
            replicator.close();
        }
        List.of(cn, eu, us).forEach(RegionalStore::close);
    }

    private Replicator start() {
        Replicator r = Replicator.builder().stores(cn, eu, us).clock(clock).pollInterval(Duration.ofMillis(10))
                                 .kafka(KafkaCluster.shared().bootstrapServers(), topics).build();
        r.start();
        return r;
    }

    private Account user(String id, Region home) {
        return new Account(id, "u-" + home, home, id, clock.instant());
    }

    @Test
    void every_change_reaches_every_other_region_once_in_its_order() {
        replicator = start();
        cn.putAccount(user("alice", CN));
        cn.updateCart("alice", (cart, replica) -> cart.add(replica, "book", 1));
        cn.updateCart("alice", (cart, replica) -> cart.add(replica, "pen", 2));
        eu.putAccount(user("bob", EU));

        Await.until("replication settles", SETTLE, replicator::caughtUp);

        for (RegionalStore store : List.of(eu, us)) {
            assertThat(store.account("alice").isOk()).as(store.region() + " alice").isTrue();
            assertThat(store.cart("alice").value().items()).as(store.region() + " cart")
                                                                .containsEntry("book", 1).containsEntry("pen", 2);
            assertThat(store.appliedSeq(cn.replicaId()).value()).isEqualTo(3);
        }
        assertThat(us.account("bob").isOk()).isTrue();
        assertThat(replicator.links()).allSatisfy(link -> {
            assertThat(link.lagMillis()).isZero();
            assertThat(link.problem()).isEmpty();
        });
    }

    @Test
    void a_paused_link_keeps_its_changes_in_kafka_and_its_lag_grows_until_it_resumes() {
        replicator = start();
        replicator.pause(CN, EU);
        cn.putAccount(user("carol", CN));

        Await.until("us has carol", SETTLE, () -> us.account("carol").isOk());
        Await.until("cn->eu lag passes 300 ms", SETTLE, () -> {
            replicator.replicateDue();
            return replicator.link(CN, EU).lagMillis() > 300;
        });
        assertThat(eu.account("carol").status()).isEqualTo(StoreResult.Status.NOT_FOUND);
        assertThat(replicator.link(CN, EU).paused()).isTrue();
        assertThat(replicator.link(CN, EU).pendingChanges()).isEqualTo(1);

        replicator.resume(CN, EU);
        Await.until("replication settles", SETTLE, replicator::caughtUp);
        assertThat(eu.account("carol").isOk()).isTrue();
        assertThat(replicator.link(CN, EU).lagMillis()).isZero();
    }

    @Test
    void a_replicator_started_again_delivers_what_was_written_while_it_was_down_from_the_stored_positions() {
        replicator = start();
        cn.putAccount(user("dave", CN));
        cn.updateCart("dave", (cart, replica) -> cart.add(replica, "book", 1));
        Await.until("replication settles", SETTLE, replicator::caughtUp);
        replicator.close();

        cn.updateCart("dave", (cart, replica) -> cart.add(replica, "book", 1)); // written while nothing replicates
        replicator = start();
        Await.until("replication settles again", SETTLE, replicator::caughtUp);

        for (RegionalStore store : List.of(eu, us)) {
            assertThat(store.cart("dave").value().items()).as(store.region().id()).containsEntry("book", 2);
            assertThat(store.appliedSeq(cn.replicaId()).value()).isEqualTo(3);
        }
    }
}
