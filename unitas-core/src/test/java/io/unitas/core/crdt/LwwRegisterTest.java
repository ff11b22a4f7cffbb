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

    @Property
    void aWriteIsLostOnlyToOneThatSawItOrIsConcurrentAndLaterByTimestampThenRegion(
            @ForAll("histories") List<Step> steps) {
        Replay h = new Replay(steps);
        LwwRegister<String> merged = h.mergedAll();
        List<LwwRegister<String>> writes = h.shipped();
        if (writes.isEmpty()) {
            assertThat(merged).isEqualTo(initial());
            return;
        }
        assertThat(writes).contains(merged);
        for (LwwRegister<String> w : writes) {
            if (w.equals(merged)) {
                continue;
            }
            Causality c = merged.version().compare(w.version());
            assertThat(c).as("%s against %s", merged, w).isNotEqualTo(Causality.BEFORE);
            if (c == Causality.CONCURRENT) {
                assertThat(merged.timestamp() > w.timestamp()
                           || merged.timestamp() == w.timestamp() && merged.region().compareTo(w.region()) > 0)
                        .as("%s beats concurrent %s by (timestamp, region)", merged, w).isTrue();
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

    @Example
    void aWriteThatSawAnother_winsWhateverTheClocksSay() {
        LwwRegister<String> cn = LwwRegister.initial("cn", "old", 100);
        LwwRegister<String> eu = cn.write("eu", "new", 5); // eu's clock is far behind

        assertThat(eu.timestamp()).isEqualTo(101);
        assertThat(cn.merge(eu).value()).isEqualTo("new");
        assertThat(eu.merge(cn).value()).isEqualTo("new");
    }

    @Example
    void concurrentWrites_theLaterCommitWins() {
        LwwRegister<String> base = LwwRegister.initial("cn", "a", 1);
        LwwRegister<String> cn = base.write("cn", "b", 20);
        LwwRegister<String> eu = base.write("eu", "c", 10);

        assertThat(cn.version().compare(eu.version())).isEqualTo(Causality.CONCURRENT);
        assertThat(cn.merge(eu)).isSameAs(cn);
        assertThat(eu.merge(cn)).isSameAs(cn);
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
