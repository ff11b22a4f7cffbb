package io.unitas.playground.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.core.Region;
import io.unitas.playground.EmbeddedRegions;
import io.unitas.playground.store.RegionalStore;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Carts written in three regions through real stores while replication runs, pauses and lags, in random
 * interleavings: once replication catches up every region holds the same cart, and no item that was added and
 * never removed anywhere is missing.
 */
class CartReplicationTest {

    static final List<Region> REGIONS = List.of(EmbeddedRegions.CN, EmbeddedRegions.EU, EmbeddedRegions.US);

    /** One step: a region adds or removes an item, a link is paused or resumed, or a replication round runs. */
    record Step(String kind, int region, int other, String item) {}

    @Provide
    Arbitrary<List<Step>> histories() {
        return Combinators.combine(
                Arbitraries.of("add", "add", "add", "remove", "pause", "resume", "round"),
                Arbitraries.integers().between(0, 2),
                Arbitraries.integers().between(0, 2),
                Arbitraries.of("apple", "book", "cup", "desk", "egg", "fig"))
                .as(Step::new).list().ofMaxSize(30);
    }

    @Property(tries = 25)
    void cartsConverge_andKeepEveryItemNoRegionRemoved(@ForAll("histories") List<Step> steps) {
        EmbeddedRegions regions = new EmbeddedRegions();
        List<RegionalStore> stores = regions.all();
        try (Replicator replicator = Replicator.builder().stores(regions.cn, regions.eu, regions.us)
                                               .clock(regions.clock).delay(Duration.ofMillis(100)).build()) {
            Set<String> added = new HashSet<>();
            Set<String> removed = new HashSet<>();
            for (Step step : steps) {
                RegionalStore store = stores.get(step.region());
                Region from = REGIONS.get(step.region());
                Region to = REGIONS.get(step.other());
                switch (step.kind()) {
                    case "add" -> {
                        assertThat(store.updateCart("alice", (c, replica) -> c.add(replica, step.item(), 1)).isOk())
                                .isTrue();
                        added.add(step.item());
                    }
                    case "remove" -> {
                        store.updateCart("alice", (c, replica) -> c.remove(step.item()));
                        removed.add(step.item());
                    }
                    case "pause" -> {
                        if (!from.equals(to)) {
                            replicator.pause(from, to);
                        }
                    }
                    case "resume" -> {
                        if (!from.equals(to)) {
                            replicator.resume(from, to);
                        }
                    }
                    default -> replicator.replicateDue();
                }
                regions.clock.advance(Duration.ofMillis(40));
            }
            for (Region from : REGIONS) {
                for (Region to : REGIONS) {
                    if (!from.equals(to)) {
                        replicator.resume(from, to);
                    }
                }
            }
            regions.clock.advance(Duration.ofSeconds(1));
            replicator.replicateDue();

            assertThat(replicator.links()).allSatisfy(link -> assertThat(link.caughtUp()).isTrue());
            Set<String> neverRemoved = new HashSet<>(added);
            neverRemoved.removeAll(removed);
            for (RegionalStore store : stores) {
                assertThat(store.cart("alice")).isEqualTo(regions.cn.cart("alice"));
                assertThat(store.cart("alice").value().items().keySet()).containsAll(neverRemoved);
            }
        } finally {
            stores.forEach(RegionalStore::close);
        }
    }
}
