package io.unitas.core.crdt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * {@link OrMap} of integers read through {@code max}: the merge laws, and a put survives exactly when no later
 * put or remove of its key observed it.
 */
class OrMapTest extends MergeLawsContract<OrMap<Integer, Integer>> {

    private static final MergePolicy<Integer> MAX = Math::max;

    @Override
    MergePolicy<OrMap<Integer, Integer>> policy() {
        return MergePolicy.orMap();
    }

    @Override
    OrMap<Integer, Integer> initial() {
        return OrMap.empty(MAX);
    }

    @Override
    OrMap<Integer, Integer> apply(OrMap<Integer, Integer> state, String replica, Step step) {
        return step.op() == 0 ? state.remove(step.key()) : state.put(replica, step.key(), step.amount());
    }

    @Property
    void aPutSurvives_exactlyWhenNoLaterPutOrRemoveOfItsKeyObservedIt(@ForAll("histories") List<Step> steps) {
        Replay h = new Replay(steps);
        OrMap<Integer, Integer> merged = h.mergedAll();
        for (Event<OrMap<Integer, Integer>> put : h.events) {
            if (put.step().op() == 0) {
                continue;
            }
            int key = put.step().key();
            Dot dot = put.after().entries().get(key).keySet().iterator().next();
            boolean observed = h.events.stream().anyMatch(
                    e -> e.step().key() == key && e.before().context().contains(dot));
            Map<Dot, Integer> live = merged.entries().getOrDefault(key, Map.of());
            if (observed) {
                assertThat(live).as("put %s of key %s, observed later", dot, key).doesNotContainKey(dot);
            } else {
                assertThat(live).as("put %s of key %s", dot, key).containsEntry(dot, put.step().amount());
                assertThat(merged.get(key)).isGreaterThanOrEqualTo(put.step().amount());
            }
        }
    }

    @Property
    void aStoredMapReadsBackEqual(@ForAll("histories") List<Step> steps) {
        OrMap<Integer, Integer> merged = new Replay(steps).mergedAll();

        assertThat(OrMap.of(MAX, merged.entries(), merged.context())).isEqualTo(merged);
    }

    @Example
    void theClassCommentsExample_holds() {
        OrMap<String, Integer> cart = OrMap.empty(Math::max);
        OrMap<String, Integer> cn = cart.put("cn", "book", 5);
        OrMap<String, Integer> eu = cart.put("eu", "book", 3).put("eu", "cup", 1);

        assertThat(cn.merge(eu).asMap()).containsOnly(Map.entry("book", 5), Map.entry("cup", 1));
        assertThat(cn.merge(eu).entries().get("book")).hasSize(2);
    }

    @Example
    void concurrentRemoveAndPut_thePutWins_andAnObservingRemoveRemoves() {
        OrMap<String, Integer> both = OrMap.<String, Integer>empty(MAX).put("cn", "book", 1);
        OrMap<String, Integer> cn = both.remove("book");
        OrMap<String, Integer> eu = both.put("eu", "book", 2);

        assertThat(cn.merge(eu).asMap()).containsOnly(Map.entry("book", 2));
        assertThat(both.merge(cn).containsKey("book")).isFalse();
    }

    @Example
    void aMapOfLwwRegisters_readsConcurrentPutsOfAKeyAsTheLaterWrite() {
        OrMap<String, LwwRegister<String>> base = OrMap.empty(MergePolicy.lastWriterWins());
        LwwRegister<String> name = LwwRegister.initial("cn", "Alice", 100);
        OrMap<String, LwwRegister<String>> both = base.put("cn", "name", name);
        OrMap<String, LwwRegister<String>> cn = both.put("cn", "name", name.write("cn", "Alice Chen", 500));
        OrMap<String, LwwRegister<String>> eu = both.put("eu", "name", name.write("eu", "Alice C.", 400))
                                                    .put("eu", "city", LwwRegister.initial("eu", "Lyon", 400));

        OrMap<String, LwwRegister<String>> merged = cn.merge(eu);

        assertThat(merged.get("name").value()).isEqualTo("Alice Chen");
        assertThat(merged.get("city").value()).isEqualTo("Lyon");
        assertThat(merged.entries().get("name")).hasSize(2);
        assertThat(merged.put("eu", "name", merged.get("name").write("eu", "A. Chen", 450)).get("name").value())
                .isEqualTo("A. Chen");
    }

    @Example
    void valuesMergedBySiblings_reportTheConflict() {
        MergePolicy<Siblings<String>> siblings = MergePolicy.siblings();
        OrMap<String, Siblings<String>> base = OrMap.empty(siblings);
        OrMap<String, Siblings<String>> cn = base.put("cn", "address", Siblings.<String>empty().write("cn", "a"));
        OrMap<String, Siblings<String>> eu = base.put("eu", "address", Siblings.<String>empty().write("eu", "b"));

        OrMap<String, Siblings<String>> merged = MergePolicy.<String, Siblings<String>>orMap().merge(cn, eu);

        assertThat(MergePolicy.<String, Siblings<String>>orMap().isConflict(merged)).isTrue();
        assertThat(merged.get("address").values()).containsExactly("a", "b");
        assertThat(MergePolicy.<String, Siblings<String>>orMap().isConflict(cn)).isFalse();
    }

    @Example
    void of_rejectsADotOutsideTheContextAndADotUnderTwoKeys() {
        Dot dot = new Dot("cn", 2);
        assertThatThrownBy(() -> OrMap.of(MAX, Map.of(1, Map.of(dot, 5)), VersionVector.of(Map.of("cn", 1L))))
                .hasMessage("dot cn:2 of 1: not in context {cn=1} (expected: every dot seen by the context)");
        assertThatThrownBy(() -> OrMap.of(MAX, new java.util.TreeMap<>(Map.of(1, Map.of(dot, 5), 2, Map.of(dot, 6))),
                                          VersionVector.of(Map.of("cn", 2L))))
                .hasMessage("dot cn:2 of 2: also under another key (expected: one write per dot)");
    }
}
