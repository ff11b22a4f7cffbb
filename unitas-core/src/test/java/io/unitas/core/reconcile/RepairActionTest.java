package io.unitas.core.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.core.crdt.LwwRegister;
import io.unitas.core.crdt.MergePolicy;
import io.unitas.core.crdt.PnCounter;
import io.unitas.core.crdt.VersionVector;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * {@link RepairAction#decide}: a repaired copy never loses a write either side had, and a copy the home has seen all
 * of becomes the home's exactly.
 */
class RepairActionTest {

    private static final MergePolicy<PnCounter> COUNTER = MergePolicy.counter();
    private static final List<String> REGIONS = List.of("cn", "eu", "us");

    @Property(tries = 500)
    void aRepairedCounter_keepsEveryIncrementOfBothCopies(
            @ForAll @Size(max = 12) List<@IntRange(min = -5, max = 5) Integer> shared,
            @ForAll @Size(max = 6) List<@IntRange(min = -5, max = 5) Integer> onlyHome,
            @ForAll @Size(max = 6) List<@IntRange(min = -5, max = 5) Integer> onlyHere) {
        PnCounter common = steps(PnCounter.zero(), shared, 0);
        PnCounter home = steps(common, onlyHome, 1);
        PnCounter here = steps(common, onlyHere, 2);

        RepairAction action = RepairAction.decide(COUNTER, Optional.of(home), Optional.of(here), true);
        PnCounter repaired = repaired(action, home, here);

        assertThat(COUNTER.merge(repaired, home)).isEqualTo(repaired);
        assertThat(COUNTER.merge(repaired, here)).isEqualTo(repaired);
        if (COUNTER.merge(home, here).equals(home)) {
            assertThat(repaired).isEqualTo(home);
        }
    }

    @Example
    void anAlteredCopyWithTheSameVector_isReplacedByTheHomes() {
        VersionVector seen = VersionVector.of(Map.of("cn", 2L));
        LwwRegister<String> home = LwwRegister.of("Alice", seen, 500, "cn");
        LwwRegister<String> altered = LwwRegister.of("Mallory", seen, 500, "cn");

        assertThat(RepairAction.decide(MergePolicy.lastWriterWins(), Optional.of(home), Optional.of(altered), false))
                .isEqualTo(RepairAction.REPLACE);
    }

    @Example
    void aCopyAheadOfTheHome_isMergedNotReplaced() {
        LwwRegister<String> home = LwwRegister.initial("cn", "Alice", 500);
        LwwRegister<String> ahead = home.write("eu", "Alice C.", 600);

        assertThat(RepairAction.decide(MergePolicy.lastWriterWins(), Optional.of(home), Optional.of(ahead), true))
                .isEqualTo(RepairAction.MERGE);
    }

    @Example
    void rowsOnOneSideOnly() {
        Optional<PnCounter> some = Optional.of(PnCounter.zero().add("cn", 1));

        assertThat(RepairAction.decide(COUNTER, some, Optional.empty(), false)).isEqualTo(RepairAction.ADOPT);
        assertThat(RepairAction.decide(COUNTER, Optional.empty(), some, true)).isEqualTo(RepairAction.KEEP);
        assertThat(RepairAction.decide(COUNTER, Optional.empty(), some, false)).isEqualTo(RepairAction.DELETE);
        assertThat(RepairAction.decide(COUNTER, some, some, false)).isEqualTo(RepairAction.NONE);
        assertThat(RepairAction.decide(COUNTER, Optional.empty(), Optional.empty(), false))
                .isEqualTo(RepairAction.NONE);
    }

    private static PnCounter steps(PnCounter start, List<Integer> amounts, int region) {
        PnCounter state = start;
        for (int amount : amounts) {
            state = amount == 0 ? state : state.add(REGIONS.get(region), amount);
        }
        return state;
    }

    private static PnCounter repaired(RepairAction action, PnCounter home, PnCounter here) {
        return switch (action) {
            case ADOPT, REPLACE -> home;
            case MERGE -> COUNTER.merge(here, home);
            default -> here;
        };
    }
}
