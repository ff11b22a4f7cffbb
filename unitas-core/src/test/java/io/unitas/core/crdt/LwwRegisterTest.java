package io.unitas.core.crdt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/** {@link LwwRegister}: the merge laws, the (version vector, timestamp, region) order, and what it may lose. */
class LwwRegisterTest extends MergeLawsContract<LwwRegister<String>> {

    @Override
    MergePolicy<LwwRegister<String>> policy() {
        return MergePolicy.lastWriterWins();
    }

    @Override
    LwwRegister<String> initial() {
        return LwwRegister.initial("origin", "v0", 0);
    }

    @Override
    LwwRegister<String> apply(LwwRegister<String> state, String replica, Step step) {
        return state.write(replica, replica + "-" + step.amount(), step.clock());
    }

    /**
     * No loss beyond the stated order: the merged value is the write latest by (timestamp, region) of all writes
     * made (a write that saw another is stamped after it, below), and the merged vector has seen every write.
     */
    @Property
    void theMergeKeepsTheLatestWriteByTimestampThenRegion_andHasSeenEveryWrite(
            @ForAll("histories") List<Step> steps) {
        Replay h = new Replay(steps);
        LwwRegister<String> merged = h.mergedAll();
        List<LwwRegister<String>> writes = h.shipped();
        if (writes.isEmpty()) {
            assertThat(merged).isEqualTo(initial());
            return;
        }
        LwwRegister<String> latest = writes.get(0);
        VersionVector all = VersionVector.empty();
        for (LwwRegister<String> w : writes) {
            if (w.timestamp() > latest.timestamp()
                || w.timestamp() == latest.timestamp() && w.region().compareTo(latest.region()) > 0) {
                latest = w;
            }
            all = all.merge(w.version());
        }
        assertThat(List.of(merged.value(), merged.timestamp(), merged.region()))
                .isEqualTo(List.of(latest.value(), latest.timestamp(), latest.region()));
        assertThat(merged.version()).isEqualTo(all);
    }

    /** Version vector first must agree with (timestamp, region) for every pair of states, or the order is no order. */
    @Property
    void aStateWhoseVectorHasSeenAnother_neverOrdersBeforeIt(@ForAll("histories") List<Step> steps) {
        List<LwwRegister<String>> states = new Replay(steps).states;
        for (LwwRegister<String> a : states) {
            for (LwwRegister<String> b : states) {
                if (a.version().compare(b.version()) == Causality.BEFORE) {
                    assertThat(a.timestamp() < b.timestamp()
                               || a.timestamp() == b.timestamp() && a.region().compareTo(b.region()) <= 0)
                            .as("%s has been seen by %s", a, b).isTrue();
                }
            }
        }
    }

    @Property
    void aWriteIsStampedAfterTheWriteItOverwrites(@ForAll("histories") List<Step> steps) {
        for (Event<LwwRegister<String>> e : new Replay(steps).events) {
            assertThat(e.after().timestamp()).isGreaterThan(e.before().timestamp())
                                             .isGreaterThanOrEqualTo(e.step().clock());
            assertThat(e.after().version().compare(e.before().version())).isEqualTo(Causality.AFTER);
        }
    }

    /**
     * eu and us write concurrently at one timestamp; us's write wins and eu adopts it, then writes again. Were the
     * adopted state to forget eu's first write, eu's second write would reuse its counter, a vector would claim to
     * have seen a write it had not, and three states would order in a cycle (merge not associative).
     */
    @Example
    void aRegionWritingAgainAfterAdoptingAConcurrentWinner_keepsTheOrderAnOrder() {
        LwwRegister<String> origin = LwwRegister.initial("origin", "v0", 0);
        LwwRegister<String> w1 = origin.write("eu", "w1", 3);
        LwwRegister<String> w2 = origin.write("us", "w2", 3);
        LwwRegister<String> w3 = w1.write("cn", "w3", 0);
        LwwRegister<String> w4 = w1.merge(w2).write("eu", "w4", 6);
        LwwRegister<String> w5 = w2.merge(w3).write("us", "w5", 4);
        LwwRegister<String> x = w3.write("cn", "x", 6);

        assertThat(w1.merge(w2).value()).isEqualTo("w2");
        assertThat(w4.version().compare(w5.version())).isEqualTo(Causality.CONCURRENT);
        assertThat(w4.merge(w5).merge(x)).isEqualTo(w4.merge(w5.merge(x)));
        assertThat(w4.merge(w5).merge(x).value()).isEqualTo("w4");
    }

    @Example
    void aWriteThatSawAnother_winsWhateverTheClocksSay() {
        LwwRegister<String> cn = LwwRegister.initial("cn", "old", 100);
        LwwRegister<String> eu = cn.write("eu", "new", 5); // eu's clock is far behind

        assertThat(eu.timestamp()).isEqualTo(101);
        assertThat(cn.merge(eu)).isSameAs(eu);
        assertThat(eu.merge(cn)).isSameAs(eu);
    }

    @Example
    void concurrentWrites_theLaterCommitWins() {
        LwwRegister<String> base = LwwRegister.initial("cn", "a", 1);
        LwwRegister<String> cn = base.write("cn", "b", 20);
        LwwRegister<String> eu = base.write("eu", "c", 10);

        assertThat(cn.version().compare(eu.version())).isEqualTo(Causality.CONCURRENT);
        assertThat(cn.winsOver(eu)).isTrue();
        assertThat(eu.winsOver(cn)).isFalse();
        LwwRegister<String> merged = eu.merge(cn);
        assertThat(merged).isEqualTo(cn.merge(eu));
        assertThat(merged.value()).isEqualTo("b");
        assertThat(merged.timestamp()).isEqualTo(20);
        assertThat(merged.region()).isEqualTo("cn");
        assertThat(merged.version()).isEqualTo(cn.version().merge(eu.version()));
    }

    @Example
    void concurrentWritesAtOneTimestamp_theLargerRegionIdWins() {
        LwwRegister<String> base = LwwRegister.initial("cn", "a", 1);
        LwwRegister<String> cn = base.write("cn", "b", 20);
        LwwRegister<String> us = base.write("us", "c", 20);

        assertThat(cn.merge(us).value()).isEqualTo("c");
        assertThat(us.merge(cn).value()).isEqualTo("c");
    }

    @Example
    void of_rejectsAVectorWithoutAWriteOfTheRegion() {
        assertThatThrownBy(() -> LwwRegister.of("x", VersionVector.of(Map.of("cn", 1L)), 5, "eu"))
                .hasMessage("version {cn=1} of a write by eu: no write of eu (expected: eu >= 1)");
    }

    @Example
    void aStoredRegisterReadsBackEqual() {
        LwwRegister<String> r = LwwRegister.initial("cn", "a", 7).write("eu", "b", 9);

        assertThat(LwwRegister.of(r.value(), r.version(), r.timestamp(), r.region()))
                .isEqualTo(r).hasSameHashCodeAs(r);
    }
}
