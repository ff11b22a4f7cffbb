package io.unitas.core.crdt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/** {@link PnCounter}: the merge laws, and every increment and decrement counts exactly once. */
class PnCounterTest extends MergeLawsContract<PnCounter> {

    @Override
    MergePolicy<PnCounter> policy() {
        return MergePolicy.counter();
    }

    @Override
    PnCounter initial() {
        return PnCounter.zero();
    }

    @Override
    PnCounter apply(PnCounter state, String replica, Step step) {
        return state.add(replica, step.op() % 2 == 0 ? step.amount() : -step.amount());
    }

    @Property
    void everyIncrementAndDecrementCountsOnce(@ForAll("histories") List<Step> steps) {
        Replay h = new Replay(steps);
        long sum = 0;
        for (Event<PnCounter> e : h.events) {
            sum += e.step().op() % 2 == 0 ? e.step().amount() : -e.step().amount();
        }
        assertThat(h.mergedAll().value()).isEqualTo(sum);
    }

    @Example
    void concurrentIncrementsInTwoRegions_bothCount() {
        PnCounter cn = PnCounter.zero().add("cn", 3);
        PnCounter eu = PnCounter.zero().add("eu", 2).add("eu", -1);

        assertThat(cn.merge(eu).value()).isEqualTo(4);
        assertThat(cn.merge(eu).increments()).containsExactly(Map.entry("cn", 3L), Map.entry("eu", 2L));
        assertThat(cn.merge(eu).decrements()).containsExactly(Map.entry("eu", 1L));
    }

    @Example
    void aStateThatSawEveryStep_isReturnedAsItIs() {
        PnCounter earlier = PnCounter.zero().add("cn", 3);
        PnCounter later = earlier.add("eu", -2);

        assertThat(later.merge(earlier)).isSameAs(later);
        assertThat(earlier.merge(later)).isSameAs(later);
    }

    @Example
    void zeroAndMinValue_areRefusedWithWhatWasExpected() {
        assertThatThrownBy(() -> PnCounter.zero().add("cn", 0))
                .hasMessage("amount of cn: 0 (expected: non-zero)");
        assertThatThrownBy(() -> PnCounter.zero().add("cn", Long.MIN_VALUE))
                .hasMessage("amount of cn: -9223372036854775808 (expected: > -9223372036854775808)");
    }

    @Example
    void aStoredCounterReadsBackEqual() {
        PnCounter c = PnCounter.zero().add("cn", 5).add("eu", -2);

        assertThat(PnCounter.of(c.increments(), c.decrements())).isEqualTo(c).hasSameHashCodeAs(c);
        assertThat(c).hasToString("PnCounter{3, +{cn=5}, -{eu=2}}");
    }
}
