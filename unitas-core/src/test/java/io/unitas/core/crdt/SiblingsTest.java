package io.unitas.core.crdt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * {@link Siblings}: the merge laws, and the merged state lists exactly the writes no other write has seen; a
 * resolution replaces every sibling it saw.
 */
class SiblingsTest extends MergeLawsContract<Siblings<String>> {

    @Override
    MergePolicy<Siblings<String>> policy() {
        return MergePolicy.siblings();
    }

    @Override
    Siblings<String> initial() {
        return Siblings.empty();
    }

    @Override
    Siblings<String> apply(Siblings<String> state, String replica, Step step) {
        String value = replica + "-" + step.amount();
        return step.op() == 0 ? state.resolve(replica, value) : state.write(replica, value);
    }

    @Property
    void theMergeListsEveryWriteNoOtherWriteHasSeen(@ForAll("histories") List<Step> steps) {
        Replay h = new Replay(steps);
        List<Siblings.Version<String>> writes = h.shipped().stream().map(s -> s.versions().get(0)).toList();
        Set<Siblings.Version<String>> unseen = new HashSet<>();
        for (Siblings.Version<String> w : writes) {
            if (writes.stream().noneMatch(o -> w.version().compare(o.version()) == Causality.BEFORE)) {
                unseen.add(w);
            }
        }
        Siblings<String> merged = h.mergedAll();

        assertThat(merged.versions()).containsExactlyInAnyOrderElementsOf(unseen);
        assertThat(policy().isConflict(merged)).isEqualTo(unseen.size() > 1);
    }

    @Example
    void twoRegionsWritingDuringAPartition_areBothKeptAndListed_untilResolved() {
        Siblings<String> cn = Siblings.<String>empty().write("cn", "1 Main St");
        Siblings<String> eu = Siblings.<String>empty().write("eu", "2 Rue Haute");

        Siblings<String> both = cn.merge(eu);
        assertThat(both.isConflict()).isTrue();
        assertThat(both.versions()).containsExactly(
                new Siblings.Version<>(VersionVector.of(Map.of("cn", 1L)), "1 Main St"),
                new Siblings.Version<>(VersionVector.of(Map.of("eu", 1L)), "2 Rue Haute"));

        Siblings<String> resolved = both.resolve("cn", "2 Rue Haute");
        assertThat(resolved.value()).isEqualTo("2 Rue Haute");
        assertThat(resolved.merge(cn).merge(eu)).isEqualTo(resolved);
        assertThat(eu.merge(resolved)).isEqualTo(resolved);
    }

    @Example
    void aWriteConcurrentWithTheResolution_staysListedBesideIt() {
        Siblings<String> both = Siblings.<String>empty().write("cn", "a")
                                        .merge(Siblings.<String>empty().write("eu", "b"));
        Siblings<String> resolved = both.resolve("cn", "a");
        Siblings<String> late = both.write("us", "c");

        assertThat(resolved.merge(late).values()).containsExactlyInAnyOrder("a", "c");
    }

    @Example
    void value_ofAConflict_namesTheSiblings() {
        Siblings<String> both = Siblings.<String>empty().write("cn", "a")
                                        .merge(Siblings.<String>empty().write("eu", "b"));

        assertThatThrownBy(both::value).isInstanceOf(IllegalStateException.class).hasMessage(
                "siblings: [Version[version={cn=1}, value=a], Version[version={eu=1}, value=b]]"
                + " (expected: exactly one version; resolve a conflict first)");
    }

    @Example
    void of_rejectsAVersionAnotherHasSeen() {
        assertThatThrownBy(() -> Siblings.of(List.of(
                new Siblings.Version<>(VersionVector.of(Map.of("cn", 1L)), "a"),
                new Siblings.Version<>(VersionVector.of(Map.of("cn", 2L)), "b"))))
                .hasMessage("versions[0]: {cn=1} not concurrent with versions[1]: {cn=2}"
                            + " (expected: siblings that have not seen each other)");
    }
}
